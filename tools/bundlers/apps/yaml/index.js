// A page that reads and writes YAML with js-yaml (a package whose source holds text that
// looks like webpack modules), then loads a part of itself later.
const yaml = require("js-yaml");
const { summary } = require("./lib/summary");

const doc = yaml.safeLoad("name: pilotfish\nfish:\n  - pilot\n  - gold\nsize: 3\nwhen: 2001-12-14\n");
console.log("loaded:", JSON.stringify(doc));
console.log("dumped:", JSON.stringify(yaml.safeDump({ a: [1, 2], b: { c: "d e" } })));
console.log(summary(doc));
try {
  yaml.safeLoad("a: [1, 2");
} catch (e) {
  console.log("caught:", e.name, e.reason);
}
import("./lib/late").then((late) => {
  console.log(late.default(doc));
});
