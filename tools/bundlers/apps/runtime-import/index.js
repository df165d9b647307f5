// A CommonJS module (not the entry) that builds its `import()` at run time, as packages
// compiled by TypeScript do to keep a real dynamic import: the code `Function` builds must
// still import, node's built-ins and a data: URL alike.
const { load, isFunction } = require("./lib/load");

load("node:path").then(async (path) => {
  console.log("path:", typeof path.join, path.basename("/a/b.txt"));
  const data = await load("data:text/javascript,export default 6 * 7");
  console.log("data:", data.default, isFunction(load));
  process.exitCode = data.default - 40;
});
