import { total, Line } from './cart';

export function checkout(lines) {
  const amount = total(lines, () => 1);
  return amount
}
