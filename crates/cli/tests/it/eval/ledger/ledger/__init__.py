from .money import Money, parse_amount
from .accounts import Account, InsufficientFunds
from .transfers import transfer_between
