// ES modules from registry packages, bundled from their ES module builds (build.json puts
// `module` before `main`): esbuild joins most into the top-level scope, and wraps in `__esm`
// those that are required (`require()` of an ES module) or loaded with `import()`, and what
// they import, through packages' re-exporting index files. For esbuild's tests (webpack 5
// builds it too; webpack 4 cannot import named exports from these packages' .mjs files).
import * as acorn from "acorn";
import { minify } from "terser";
import { TraceMap, originalPositionFor } from "@jridgewell/trace-mapping";
import { encode, decode } from "@jridgewell/sourcemap-codec";

const wasm = require("@webassemblyjs/ast");
const lexer = require("es-module-lexer");

console.log("acorn:", acorn.parse("let a = 1 + 2", { ecmaVersion: 2020 }).body[0].type);
console.log("mappings:", typeof TraceMap, typeof originalPositionFor, encode(decode("AAAA;AACA")));
const program = wasm.program([wasm.module("m", [])]);
console.log("wasm:", program.type, Object.keys(wasm).length, wasm.isModule(program.body[0]));
console.log("lexer:", typeof lexer.parse);
minify("function f(x) { return x + 1 } f(2)", { compress: true })
  .then((r) => {
    console.log("terser:", r.code);
    return import("@jridgewell/gen-mapping");
  })
  .then((g) => {
    const map = new g.GenMapping({ file: "a.js" });
    g.addMapping(map, { generated: { line: 1, column: 0 }, source: "b.js", original: { line: 1, column: 0 } });
    console.log("gen-mapping:", g.toEncodedMap(map).mappings);
    process.exitCode = 5;
  });
