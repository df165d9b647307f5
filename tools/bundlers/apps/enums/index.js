// CommonJS modules as tsc writes enums, each starting and ending with an enum's function
// called at once: minified inside rollup's lazy wrappers, those calls join the wrapper's
// flag (`A=1,function(e){...}(...)`) and its return (`return function(e){...}(...),B`).
const { State, describe } = require("./lib/state");
const { Kind, kinds } = require("./lib/kind");
const { Level, Meter } = require("./lib/level");
const probe = require("./lib/probe");

console.log("states:", describe(State.Idle), describe(State.Busy), State[1]);
console.log("kinds:", kinds().join(","), Kind.Large);
console.log("meter:", new Meter(Level.High).read(), "probe:", probe.ok);
process.exitCode = State.Busy + Kind.Small;
