from .money import round_cents, Price

def invoice(total):
    price = Price(int(total * 100))
    return round_cents(price.euros())
