"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.run = function () {
  return "run: as written";
};
