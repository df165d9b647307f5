from dataclasses import dataclass


@dataclass(frozen=True)
class Money:
    cents: int
    currency: str = "EUR"

    def plus(self, other: "Money") -> "Money":
        ensure_same_currency(self, other)
        return Money(self.cents + other.cents, self.currency)

    def minus(self, other: "Money") -> "Money":
        ensure_same_currency(self, other)
        return Money(self.cents - other.cents, self.currency)

    def is_negative(self) -> bool:
        return self.cents < 0


def ensure_same_currency(a: Money, b: Money) -> None:
    if a.currency != b.currency:
        raise ValueError(f"cannot mix {a.currency} and {b.currency}")


def parse_amount(text: str, currency: str = "EUR") -> Money:
    whole, _, fraction = text.strip().partition(".")
    fraction = (fraction + "00")[:2]
    sign = -1 if whole.startswith("-") else 1
    cents = abs(int(whole or "0")) * 100 + int(fraction)

    return Money(sign * cents, currency)


def format_amount(amount: Money) -> str:
    sign = "-" if amount.is_negative() else ""
    whole, cents = divmod(abs(amount.cents), 100)

    return f"{sign}{whole}.{cents:02d} {amount.currency}"
