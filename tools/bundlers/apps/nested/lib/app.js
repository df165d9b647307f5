const plain = require("./plain");
const self = require("./self");
const patched = require("./patched");
function patch(m) {
  m.run = function () {
    return this === m ? "run: receiver" : "run: no receiver";
  };
}
console.log((0, plain.greet)("world"), (0, plain.shout)("quiet"));
console.log((0, self.who)());
patch(patched);
console.log((0, patched.run)());
