from dataclasses import dataclass


@dataclass
class Line:
    sku: str
    cents: int
    quantity: int


def total(lines: list[Line]) -> int:
    return sum(line.cents * line.quantity for line in lines)
