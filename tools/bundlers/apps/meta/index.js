// An ES module program as the agent CLIs ship it: `import.meta.url`, top-level `await`,
// `import()`, CommonJS packages required through `createRequire` (the bundlers' banner), an
// ES module required (so that it is wrapped), and two output lines that tell where the
// bundle lives. For the ES-module and Bun shapes of the unbundler's tests.
import { fileURLToPath } from "node:url";
import path from "node:path";
import ms from "ms";
import semver from "semver";
import { greet, Counter } from "./lib/greet.js";

const here = path.basename(path.dirname(fileURLToPath(import.meta.url)));
const settled = await Promise.resolve(semver.maxSatisfying(["1.2.3", "1.4.0", "2.0.0"], "^1.0.0"));
console.log("ms:", ms(90 * 1000), ms("2h"));
console.log("semver:", settled);
console.log("greet:", greet("meta"), new Counter().bump().bump().count);
console.log("where:", typeof import.meta.url, import.meta.url.startsWith("file:"), here.length > 0);
const late = await import("./lib/late.js");
console.log("late:", late.later(3), late.where().endsWith(".js") || late.where().endsWith(".mjs"));
const legacy = require("./lib/legacy.cjs");
console.log("legacy:", legacy.total([1, 2, 3]));
const meta = require("./lib/meta.js");
console.log("meta:", meta.url === import.meta.url, await meta.load());
process.exitCode = 6;
