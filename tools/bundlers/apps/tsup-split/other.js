// The second entry: it shares two.cjs with main.js.
import two from "./lib/two.cjs";

export const twice = (n) => two.double(n);
export const greeting = two("other");
