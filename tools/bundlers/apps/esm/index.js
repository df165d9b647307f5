// ES modules and TypeScript-style CommonJS together: the shapes behind `(0, x.f)(...)` calls
// and webpack's `require.d` export getters. Some exports use `this`, one is a live binding,
// so the unbundler's transforms must leave those alone for the output to print the same.
import { area, Shape, whoAmI, counter, value, setValue, describe } from "./lib/shapes.js";
import scale from "./lib/shapes.js";
import ms from "ms";
import { run } from "./lib/consumer.js";

const legacy = require("./lib/legacy.js");

console.log("area:", area(2).toFixed(2), new Shape("square", 4).toString());
console.log("who:", whoAmI(), counter.bump(), counter.bump());
console.log("value:", value, setValue(5), value);
console.log("scale:", scale(3), describe());
console.log("ms:", ms(1500));
console.log("consumer:", JSON.stringify(run()));
console.log("legacy:", legacy.total(), legacy.names());
import("./lib/late.js").then((late) => {
  console.log("late:", late.greet("async"));
  process.exitCode = 4;
});
