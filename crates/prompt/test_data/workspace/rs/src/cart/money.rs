pub struct Money {
    pub cents: u64,
}

pub fn round(amount: f64) -> Money {
    Money { cents: (amount * 100.0).round() as u64 }
}

fn hidden() {}
