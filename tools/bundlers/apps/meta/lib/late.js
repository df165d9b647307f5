import { greet } from "./greet.js";
export const later = (n) => greet("later ".repeat(n).trim());
export function where() {
  return import.meta.url;
}
