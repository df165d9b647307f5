// State kept between calls: the module must run once.
let n = 0;
exports.next = function () {
  return ++n;
};
exports.same = function () {
  return require("./counter") === exports ? "once" : "twice";
};
