// rollup 2's old CommonJS plugin runs each CommonJS file where it is, as
// a call of its helper with the module function: a module that replaces its exports,
// one that adds to them, one that counts its runs, and two registry packages.
const ms = require("ms");
const _ = require("lodash");
const greet = require("./lib/greet");
const tally = require("./lib/tally");
const again = require("./lib/tally");

console.log(greet("rollup"), greet.loud("two"));
console.log("tally:", tally.count(), again === tally, tally.runs);
console.log("ms:", ms(90 * 1000), ms("2h"));
console.log("chunks:", JSON.stringify(_.chunk([1, 2, 3, 4, 5], 2)));
