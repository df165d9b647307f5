// Two entries built by tsup into code-split CommonJS chunks: esbuild's helpers land in a
// shared chunk, and each chunk calls them through that chunk's namespace, as sucrase writes
// it: `chunk.__commonJS.call(void 0, {...})`.
import one from "./lib/one.cjs";
import two from "./lib/two.cjs";
import { twice } from "./other.js";

console.log(one.name, one.runs(), one.runs());
console.log(two("tsup"), twice(21));
