export const order = [];
export async function settle(value) {
  await new Promise((resolve) => setTimeout(resolve, 5));
  order.push("settled " + value);
  return value;
}
order.push("order");
