// Two programs built apart, each with its own copy of ms and semver (esbuild, not minified:
// each copy keyed by the same path), given to the unbundler together: both copies need
// files of their own. This one runs the other, which it requires from beside it.
const ms = require("ms");
const other = require("./other.js");
console.log("main:", ms(60000), other.newest(["1.0.0", "1.2.0"]));
process.exitCode = 3;
