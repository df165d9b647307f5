"""Turning a cart into an order."""

from dataclasses import dataclass
from datetime import datetime

from cart import Cart


@dataclass
class Order:
    number: int
    placed_at: datetime
    lines: list[tuple[str, int, float]]
    total: float


class OrderBook:
    def __init__(self) -> None:
        self._orders: list[Order] = []

    def place(self, cart: Cart, discount: float = 0.0) -> Order:
        if cart.is_empty():
            raise ValueError("cannot place an empty order")
        lines = [(line.product.sku, line.quantity, line.subtotal()) for line in cart.lines]
        order = Order(len(self._orders) + 1, datetime.now(), lines, cart.total(discount))
        self._orders.append(order)
        return order

    def cancel(self, number: int, cart: Cart) -> None:
        for line in cart.lines:
            
