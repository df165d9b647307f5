from .money import Money, ensure_same_currency, format_amount


class InsufficientFunds(Exception):
    def __init__(self, account_name: str, missing: Money):
        super().__init__(f"{account_name} lacks {format_amount(missing)}")
        self.missing = missing


class Account:
    def __init__(self, name: str, opening: Money):
        self.name = name
        self.balance = opening
        self.history: list[Money] = []

    def deposit(self, amount: Money) -> None:
        ensure_same_currency(self.balance, amount)
        self.balance = self.balance.plus(amount)
        self.history.append(amount)

    def withdraw(self, amount: Money) -> None:
        remaining = self.balance.minus(amount)
        if remaining.is_negative():
            raise InsufficientFunds(self.name, Money(-remaining.cents, amount.currency))

        self.balance = remaining
        self.history.append(Money(-amount.cents, amount.currency))

    def statement(self) -> list[str]:
        lines = [format_amount(entry) for entry in self.history]

        lines.append("balance " + format_amount(self.balance))
        return lines
