// A small program whose output depends on several modules and three registry packages.
const semver = require("semver");
const ms = require("ms");
const _ = require("lodash");
const { Inventory, Error: InventoryError } = require("./lib/inventory");
const report = require("./lib/report");

const inv = new Inventory();
inv.add("apple", 3, 0.5);
inv.add("pear", 0, 0.75);
inv.add("plum", 12, 0.2);

console.log(report.lines(inv).join("\n"));
console.log("newest:", semver.maxSatisfying(["1.2.3", "1.4.0", "2.0.0-rc.1"], "^1.0.0"));
console.log("timeout:", ms(90 * 1000), ms("2h"));
console.log("groups:", JSON.stringify(_.groupBy(inv.items(), (i) => (i.count > 0 ? "in" : "out"))));
try {
  inv.take("kiwi", 1);
} catch (e) {
  console.log("caught:", e instanceof InventoryError, e.name, e.message);
}
report.later(inv).then((text) => {
  console.log(text);
  process.exitCode = inv.total() > 5 ? 3 : 0;
});
