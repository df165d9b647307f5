// The app rollup bundles with its CommonJS plugin: it requires CommonJS packages (each a
// lazy `requireX()` wrapper) and imports a package esbuild built (see inner.js), as
// bin.js files of some published CLIs are made.
import { describe } from "./dist/inner.mjs";
import _ from "lodash";
import report from "../cjs/lib/report.js";

console.log("described:", describe(90 * 1000));
console.log("lodash:", _.sum([1, 2, 3]), typeof report.lines);
process.exitCode = 2;
