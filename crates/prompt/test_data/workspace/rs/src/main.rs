use crate::cart::money::{round, Money};

fn main() {
    let m: Money = round(1.5);
    println!("{}", m.cents);
}
