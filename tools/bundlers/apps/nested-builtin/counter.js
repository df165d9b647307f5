// State kept between calls: the module must run once. A class's methods read their own
// `this`, not the code around the module's.
class Counter {
  constructor() {
    this.n = 0;
  }
  next() {
    return ++this.n;
  }
}
const counter = new Counter();
exports.next = function () {
  return counter.next();
};
exports.same = function () {
  return require("./counter") === exports ? "once" : "twice";
};
