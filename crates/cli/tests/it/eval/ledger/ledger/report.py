from .accounts import Account
from .money import Money, format_amount


def total_balance(accounts: list[Account]) -> Money:
    total = Money(0, accounts[0].balance.currency)
    for account in accounts:
        total = total.plus(account.balance)

    return total


def balance_lines(accounts: list[Account]) -> list[str]:
    ordered = sorted(accounts, key=lambda a: a.balance.cents, reverse=True)
    lines = [f"{a.name}: {format_amount(a.balance)}" for a in ordered]

    lines.append("total: " + format_amount(total_balance(accounts)))
    return lines


def overdrawn(accounts: list[Account]) -> list[str]:
    return [a.name for a in accounts if a.balance.is_negative()]
