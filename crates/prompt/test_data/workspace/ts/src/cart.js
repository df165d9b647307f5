export function total(lines, price) {
  return lines.reduce((sum, l) => sum + l.quantity * price(l.sku), 0);
}
