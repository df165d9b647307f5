// Counts the calls of esbuild's interop helpers (`__toESM`, `__toCommonJS`, `__reExport`,
// `__export`, under whatever names a minifier gave them) that an unbundled output keeps:
// `node helper-calls.js OUT BUNDLE-FILE...`, one JSON line `{"__toESM": 12, ...}`.
// The helpers are found in the bundle's own files by their shapes (acorn, a parser of its own,
// not pilotfish's), and a call counts where its callee is the helper: a name the file does not
// declare (a module file receives the helpers as parameters) or declares at its top level (the
// bundle file). Run with the packages of tools/bundlers (acorn, eslint-scope) installed.
"use strict";
const fs = require("fs");
const path = require("path");
const here = path.join(__dirname, "..", "bundlers", "node_modules");
const scope = require(path.join(here, "eslint-scope"));

const parse = (text) => require("./parse").parse(text, "module");

// esbuild's name for a helper's value, by shape (as the helpers of a minified bundle read).
function shape(init, text) {
  const fn = init && (init.type === "ArrowFunctionExpression" || init.type === "FunctionExpression") ? init : null;
  if (!fn) return null;
  const compact = text.slice(fn.start, fn.end).replace(/\s+/g, "").replace(/'/g, '"');
  const params = fn.params.length;
  if (compact.includes("{exports:{}}") && params === 2) return null; // __commonJS
  if (compact.includes("__esModule") && params === 1) return "__toCommonJS";
  if (compact.includes("__esModule") && compact.includes('"default"')) return "__toESM";
  if (compact.includes('"default"') && params >= 3 && !compact.includes("__esModule")) return "__reExport";
  if (/for\((var|let|const)/.test(compact) && compact.includes("get:") && params === 2 && !compact.includes("__esModule")) return "__export";
  return null;
}

// The helpers each bundle file defines at its top level (or in the body of an arrow that is
// its only statement, as esbuild's --format=iife writes): name -> esbuild's name.
function helpers(files) {
  const found = new Map();
  for (const file of files) {
    const text = fs.readFileSync(file, "utf8");
    let [ast] = parse(text);
    let body = ast.body;
    const only = body.length === 1 && body[0].type === "ExpressionStatement" && body[0].expression.type === "CallExpression" && body[0].expression.callee.type === "ArrowFunctionExpression";
    if (only && body[0].expression.callee.body.type === "BlockStatement") body = body[0].expression.callee.body.body;
    for (const statement of body) {
      if (statement.type !== "VariableDeclaration") continue;
      for (const d of statement.declarations) {
        const name = d.id.type === "Identifier" && shape(d.init, text);
        if (name) found.set(d.id.name, name);
      }
    }
  }
  return found;
}

function files(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...files(full));
    else if (/\.(c|m)?js$/.test(entry.name) && entry.name !== "unbundle-loader.cjs" && !entry.name.endsWith("esbuild-runtime.cjs")) out.push(full);
  }
  return out;
}

function count(file, names, totals) {
  const text = fs.readFileSync(file, "utf8");
  let ast, kind;
  try {
    [ast, kind] = parse(text);
  } catch (e) {
    totals.unparsed = (totals.unparsed || 0) + 1;
    return;
  }
  const manager = scope.analyze(ast, { ecmaVersion: 2022, sourceType: kind, ignoreEval: true });
  const top = manager.globalScope;
  const tops = new Set([top, ...top.childScopes.filter((s) => s.type === "module")]);
  const calls = new Set();
  (function walk(node, parent) {
    if (!node || typeof node.type !== "string") return;
    if (node.type === "CallExpression" && node.callee.type === "Identifier") calls.add(node.callee);
    for (const key of Object.keys(node)) {
      const v = node[key];
      if (Array.isArray(v)) v.forEach((c) => c && typeof c.type === "string" && walk(c, node));
      else if (v && typeof v.type === "string") walk(v, node);
    }
  })(ast);
  for (const s of manager.scopes) {
    for (const ref of s.references) {
      const helper = names.get(ref.identifier.name);
      if (!helper || !calls.has(ref.identifier)) continue;
      if (ref.resolved === null || tops.has(ref.resolved.scope)) totals[helper] = (totals[helper] || 0) + 1;
    }
  }
}

const [out, ...bundle] = process.argv.slice(2);
const names = helpers(bundle);
const totals = { __toESM: 0, __toCommonJS: 0, __reExport: 0, __export: 0 };
for (const file of files(out)) count(file, names, totals);
console.log(JSON.stringify(totals));
