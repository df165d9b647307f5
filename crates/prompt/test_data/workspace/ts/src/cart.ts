export interface Line {
  sku: string;
  quantity: number;
}

export function total(lines: Line[], price: (sku: string) => number): number {
  return lines.reduce((sum, l) => sum + l.quantity * price(l.sku), 0);
}

export const VAT = 0.2;

function internal() {
  return 1;
}
