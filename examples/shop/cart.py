"""A shopping cart: items, quantities and totals."""

from dataclasses import dataclass, field

from inventory import Inventory, Product


@dataclass
class CartLine:
    product: Product
    quantity: int

    def subtotal(self) -> float:
        return self.product.price * self.quantity


@dataclass
class Cart:
    inventory: Inventory
    lines: list[CartLine] = field(default_factory=list)

    def add(self, sku: str, quantity: int = 1) -> None:
        product = self.inventory.find(sku)
        if product is None:
            raise KeyError(f"unknown product {sku}")
        if not self.inventory.reserve(sku, quantity):
            raise ValueError(f"only {self.inventory.available(sku)} of {sku} left")
        for line in self.lines:
            if line.product.sku == sku:
                line.quantity += quantity
                return
        self.lines.append(CartLine(product, quantity))

    def remove(self, sku: str) -> None:
        for line in self.lines:
            if line.product.sku == sku:
                self.inventory.release(sku, line.quantity)
        self.lines = [line for line in self.lines if line.product.sku != sku]

    def total(self, discount: float = 0.0) -> float:
        subtotal = sum(line.subtotal() for line in self.lines)
        return round(subtotal * (1.0 - discount), 2)

    def is_empty(self) -> bool:
        return not self.lines
