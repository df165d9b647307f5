// Imported by name only, from a module esbuild wraps: esbuild hoists `word` out of this
// module's initializer, and importers read it, live, by its name.
import { area } from "./shapes.js";

export let word = area(1) > 3 ? "" : "?";

export function shout() {
  word += "!";
}
