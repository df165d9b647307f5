// A webpack bundle that requires a node builtin, bundled by webpack for node (the builtin an
// external module: `module.exports = require("path")`); the test bundles webpack's output
// again with rollup's CommonJS plugin, which holds it in a lazy `requireX()` wrapper and
// replaces that `require("path")` with a variable of rollup's own, so a module of the nested
// bundle reads a name of the code around it (as jiti's does in nuxi).
const path = require("path");
const counter = require("./counter");
console.log(path.basename("/a/b/c.txt"), counter.next(), counter.next(), counter.same());
