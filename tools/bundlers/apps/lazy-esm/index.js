// CommonJS that requires ES modules: a bundler runs each ES module lazily, when first
// required (rolldown's `__esmMin`, esbuild's `__esm`). One of them throws as it runs: the
// newer helpers keep that error and throw it again on every later require.
function load() {
  try {
    return require("./lib/flaky.mjs");
  } catch (e) {
    return e;
  }
}
const first = load();
const again = load();
console.log("flaky:", first instanceof Error, first === again, first.message);
const { twice, runs } = require("./lib/math.mjs");
console.log("math:", twice(21), runs(), require("./lib/math.mjs").runs());
process.exitCode = twice(3);
