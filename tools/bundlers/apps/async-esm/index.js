// ES modules with top-level `await` loaded on demand: Bun runs each through
// `__esm(async () => {...})`, and what imports it awaits its initializer.
const { twice, order } = await import("./lib/late.js");
order.push("entry");
console.log("late:", twice(4), order.join(" > "));
process.exitCode = twice(1);
