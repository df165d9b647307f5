// Loaded by `import()`: its own chunk for webpack, an `__esm` module for esbuild, which then
// wraps what it imports (words.js) too, without a namespace object of its own.
import { word, shout } from "./words.js";

export function greet(who) {
  shout();
  return `late ${who}${word}`;
}
