// Modules written as tsc writes CommonJS (`(0, x.f)(...)` calls), bundled by webpack; the
// test bundles webpack's output again with esbuild, so the webpack bundle is nested in one
// of esbuild's modules. `greet` and `shout` need no receiver; `who` reads `this`; `run` is
// replaced by a function that reads `this` once the module's exports are handed on.
// The calls are in a module of their own: webpack 5 writes the entry module into its runtime.
require("./lib/app");
