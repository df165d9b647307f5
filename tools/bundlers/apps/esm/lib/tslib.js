"use strict";
// As `tsc` writes a module for CommonJS: exports assigned up front, functions hoisted.
Object.defineProperty(exports, "__esModule", { value: true });
exports.self = exports.greet = void 0;
exports.greet = greet;
exports.twice = twice;
function greet(name) {
  return "hello " + name;
}
function twice(f, x) {
  return f(f(x));
}
// Uses its receiver: `(0, tslib_1.self)()` must not become `tslib_1.self()`.
const self = function () {
  return this === undefined ? "no receiver" : "a receiver";
};
exports.self = self;
