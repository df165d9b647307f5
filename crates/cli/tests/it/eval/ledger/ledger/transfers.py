from .accounts import Account, InsufficientFunds
from .money import Money, parse_amount


def transfer_between(source: Account, target: Account, amount: Money) -> bool:
    try:
        source.withdraw(amount)
    except InsufficientFunds:
        return False

    target.deposit(amount)
    return True


def transfer_text(source: Account, target: Account, text: str) -> bool:
    amount = parse_amount(text, source.balance.currency)

    return transfer_between(source, target, amount)


def settle_all(debts: list[tuple[Account, Account, Money]]) -> list[Account]:
    failed = []
    for debtor, creditor, owed in debts:
        if not transfer_between(debtor, creditor, owed):
            failed.append(debtor)

    return failed
