"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.tag = "self";
exports.who = function () {
  return this && this.tag ? "who: receiver " + this.tag : "who: no receiver";
};
