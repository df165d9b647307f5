// A module that calls `eval` (terser then leaves the names of every scope around it as they
// were, the module function's parameters included), and a chunk loaded on demand (webpack
// 5 for node writes it as `exports.ids = [...]; exports.modules = {...}`).
const calc = require("./lib/calc.js");

console.log("calc:", calc.run("total + 1"), calc.run("typeof __webpack_require__"), calc.run("typeof module"));
import("./lib/late.js").then((late) => {
  console.log("late:", late.later(2));
  process.exitCode = 7;
});
