"use strict";
// As `tsc` writes calls of imported functions: `(0, module_1.f)(...)`, no receiver.
Object.defineProperty(exports, "__esModule", { value: true });
exports.run = run;
const tslib_1 = require("./tslib.js");
const shapes_1 = require("./shapes.js");
function run() {
  return [
    (0, tslib_1.greet)("ts"),
    (0, tslib_1.twice)((x) => x * 3, 2),
    (0, tslib_1.self)(),
    (0, shapes_1.whoAmI)(),
    (0, shapes_1.area)(1) > 3,
  ];
}
