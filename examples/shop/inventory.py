"""Stock levels and reservations for the products the shop sells."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Product:
    sku: str
    name: str
    price: float


class Inventory:
    def __init__(self) -> None:
        self._products: dict[str, Product] = {}
        self._stock: dict[str, int] = {}
        self._reserved: dict[str, int] = {}

    def add_product(self, product: Product, stock: int) -> None:
        self._products[product.sku] = product
        self._stock[product.sku] = stock
        self._reserved.setdefault(product.sku, 0)

    def find(self, sku: str) -> Product | None:
        return self._products.get(sku)

    def available(self, sku: str) -> int:
        return self._stock.get(sku, 0) - self._reserved.get(sku, 0)

    def reserve(self, sku: str, quantity: int) -> bool:
        if self.available(sku) < quantity:
            return False
        self._reserved[sku] += quantity
        return True

    def release(self, sku: str, quantity: int) -> None:
        self._reserved[sku] = max(0, self._reserved.get(sku, 0) - quantity)
