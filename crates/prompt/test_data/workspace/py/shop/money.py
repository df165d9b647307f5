"""Money helpers."""

def round_cents(amount: float) -> float:
    """Round to whole cents."""
    return round(amount * 100) / 100


class Price:
    def __init__(self, cents: int) -> None:
        self.cents = cents

    def euros(self) -> float:
        return self.cents / 100
