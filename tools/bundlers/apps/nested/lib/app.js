const plain = require("./plain");
const self = require("./self");
const patched = require("./patched");
function patch(m) {
  m.run = function () {
    return this === m ? "run: receiver" : "run: no receiver";
  };
}
// Destructuring reads named exports only: `plain`'s exports are not handed on.
const { shout } = plain;
console.log((0, plain.greet)("world"), (0, plain.shout)("quiet"), shout("named"));
console.log((0, self.who)());
patch(patched);
console.log((0, patched.run)());
