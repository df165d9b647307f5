import { order, settle } from "./order.js";

order.push("late before");
const base = await settle(2);
order.push("late after");

export function twice(n) {
  return n * base;
}
export { order };
