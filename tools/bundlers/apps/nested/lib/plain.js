"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.shout = exports.greet = void 0;
function greet(name) {
  return "hello " + name;
}
exports.greet = greet;
const shout = (s) => s.toUpperCase() + "!";
exports.shout = shout;
