// Classifies the `(0, x.f)(...)` calls an unbundled output keeps by why pilotfish keeps the
// `0,`, as far as the output's own text tells: `node receiverless-calls.js OUT [BUNDLE-NAME...]`
// prints one JSON line `{"statements-free": ..., "causes": {CAUSE: COUNT, ...}, "examples": {...}}`.
// `x` is resolved with eslint-scope to what it is bound to (`require("./m.js")`, a name the
// bundle passes the file for a module, the bundle file's `__pilotfish_load.commonjs("m")`, an
// interop wrapper of one of those, a node built-in, ...) and, for a module of the output, the
// module's text is read for how it defines its exports (`module.exports = g(...)`, a function,
// an object; `exports.f = ...`). A heuristic for the analysis of issue 44, not a proof: the
// unbundler's plan (crates/unbundle/src/transform/exports) is what decides.
// Run with the packages of tools/bundlers (acorn, eslint-scope) installed.
"use strict";
const fs = require("fs");
const path = require("path");
const { builtinModules } = require("module");
const here = path.join(__dirname, "..", "bundlers", "node_modules");
const escope = require(path.join(here, "eslint-scope"));

const parse = (text) => require("./parse").parse(text, "script");

function walk(node, visit, parent) {
  if (!node || typeof node.type !== "string") return;
  visit(node, parent);
  for (const key in node) {
    const v = node[key];
    if (key === "type" || key === "start" || key === "end") continue;
    if (Array.isArray(v)) for (const c of v) walk(c, visit, node);
    else if (v && typeof v.type === "string") walk(v, visit, node);
  }
}

function files(dir, into) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) files(p, into);
    else if (/\.(c|m)?js$/.test(e.name)) into.push(p);
  }
  return into;
}

const isRequire = (e) =>
  e && e.type === "CallExpression" && e.callee.type === "Identifier" && e.callee.name === "require" &&
  e.arguments.length === 1 && e.arguments[0].type === "Literal" && typeof e.arguments[0].value === "string";

const cache = new Map();
function parsed(file) {
  if (!cache.has(file)) {
    try {
      const text = fs.readFileSync(file, "utf8");
      const [ast, sourceType] = parse(text);
      cache.set(file, { ast, sourceType, text });
    } catch {
      cache.set(file, null);
    }
  }
  return cache.get(file);
}

// The module file names a file gets from the bundle: its header's `NAME: PATH` lines.
function passed(text, out) {
  const map = new Map();
  for (const m of text.slice(0, 200000).matchAll(/^\/\/ {3}([\w$]+): (\S+)$/gm)) map.set(m[1], path.join(out, m[2]));
  return map;
}

// The single value `v` is bound to (its declaration's, or its one assignment's), or null.
function value(variable) {
  if (!variable) return null;
  const values = [];
  for (const d of variable.defs) {
    if (d.type === "Variable" && d.node.init) values.push(d.node.init);
    else if (d.type === "Parameter") return { param: true };
    else if (d.type === "FunctionName" || d.type === "ClassName") values.push(d.node);
    else if (d.type === "ImportBinding") return { import: true };
  }
  for (const r of variable.references) if (r.writeExpr && !r.init) values.push(r.writeExpr);
  return values.length === 1 ? { expr: values[0] } : { many: values.length };
}

// What `expr` (a receiver's value) stands for: {target: FILE} | {builtin} | {external} | ...
function source(expr, ctx) {
  if (expr.type === "SequenceExpression") expr = expr.expressions[expr.expressions.length - 1];
  if (isRequire(expr)) {
    const spec = expr.arguments[0].value;
    if (spec.startsWith(".")) return { target: path.resolve(path.dirname(ctx.file), spec) };
    const bare = spec.replace(/^node:/, "").split("/")[0];
    if (spec.startsWith("node:") || builtinModules.includes(bare)) return { kind: "node built-in module" };
    return { kind: "package outside the bundle" };
  }
  if (
    expr.type === "CallExpression" && expr.callee.type === "Identifier" && expr.callee.name === "require" &&
    expr.arguments.length === 1 && expr.arguments[0].type === "Literal" && typeof expr.arguments[0].value === "number"
  ) {
    const target = ctx.ids.get(String(expr.arguments[0].value));
    if (target) return { target };
  }
  if (expr.type === "CallExpression" && expr.callee.type === "Identifier") {
    const name = expr.callee.name;
    if (expr.arguments.length === 0 && ctx.passed.has(name)) return { target: ctx.passed.get(name) };
    if (expr.arguments.length === 0 && ctx.wrappers.has(name)) return { target: ctx.wrappers.get(name) };
    if (expr.arguments.length >= 1 && expr.arguments[0].type === "CallExpression") {
      const inner = source(expr.arguments[0], ctx);
      if (inner.target || inner.kind) return { ...inner, wrapped: name };
    }
    if (expr.arguments.length === 1 && expr.arguments[0].type === "Literal" && typeof expr.arguments[0].value === "number")
      return { kind: "a nested bundle's require(N) (kept whole)" };
  }
  if (expr.type === "MemberExpression") return { kind: "receiver is a property of another object" };
  return { kind: `receiver bound to ${expr.type}` };
}

// How module `file` defines its export `name` (`default` through a wrapper: the module).
function exportForm(file, name, wrapped) {
  const p = parsed(file) || parsed(file + ".js") || parsed(file + ".cjs");
  if (!p) return "target not a file of the output (a nested bundle's loader answers it)";
  // A function of the module's own top level by the export's name that reads `this`.
  for (const s of p.ast.body) {
    const f =
      s.type === "FunctionDeclaration" && s.id.name === name
        ? s
        : s.type === "VariableDeclaration"
          ? (s.declarations.find((d) => d.id.name === name && d.init && d.init.type === "FunctionExpression") || {}).init
          : null;
    if (f && usesThis(f.body)) return "an export whose function reads `this` (must keep)";
  }
  const isModuleExports = (e) =>
    e.type === "MemberExpression" && !e.computed && e.object.type === "Identifier" && e.object.name === "module" && e.property.name === "exports";
  const isExportsProp = (e, n) =>
    e.type === "MemberExpression" && !e.computed && e.property.name === n &&
    ((e.object.type === "Identifier" && e.object.name === "exports") || isModuleExports(e.object));
  let whole = null;
  let own = null;
  for (const s of p.ast.body) {
    if (s.type !== "ExpressionStatement" || s.expression.type !== "AssignmentExpression") continue;
    const a = s.expression;
    if (isModuleExports(a.left)) whole = a.right;
    if (isExportsProp(a.left, name)) own = a.right;
  }
  const top = (n) => {
    for (const s of p.ast.body) {
      if (s.type === "FunctionDeclaration" && s.id.name === n) return s;
      if (s.type === "ClassDeclaration" && s.id.name === n) return s;
      if (s.type === "VariableDeclaration")
        for (const d of s.declarations) if (d.id.type === "Identifier" && d.id.name === n && d.init) return d.init;
    }
    return null;
  };
  const kind = (e, depth = 0) => {
    if (!e) return "unknown";
    if (e.type === "Identifier" && depth < 3) {
      const t = top(e.name);
      return t ? `a name given ${kind(t, depth + 1)}` : "a name";
    }
    if (e.type === "CallExpression" || e.type === "NewExpression") return "a call's result";
    if (/Function|Arrow/.test(e.type))
      return e.type !== "ArrowFunctionExpression" && usesThis(e.body) ? "a function that reads `this` (must keep)" : "a function";
    if (e.type === "Identifier") return "a name";
    if (e.type === "ObjectExpression") return "an object";
    if (e.type === "AssignmentExpression") return kind(e.right);
    return e.type;
  };
  if (whole && (wrapped || name === "default" || !own)) return `module.exports = ${kind(whole)}`;
  if (own) return `exports.${name === "default" ? "default" : "f"} = ${kind(own)}`;
  if (/Object\.defineProperty\(exports, "/.test(p.text) && p.text.includes(`"${name}"`)) return "a getter (defineProperty)";
  if (/__exportStar|__reExport|_export_star/.test(p.text)) return "through a star re-export";
  if (p.text.includes(`${name}:`) && /__export\(|require\.d\(/.test(p.text)) return "esbuild/webpack namespace getter";
  return "defined otherwise";
}

// Whether `node` has a `this` of the function it is the body of (arrows see through).
function usesThis(node) {
  let found = false;
  const visit = (n) => {
    if (!n || typeof n.type !== "string" || found) return;
    if (n.type === "ThisExpression") found = true;
    if (n.type === "FunctionExpression" || n.type === "FunctionDeclaration") return;
    for (const k in n) {
      const v = n[k];
      if (Array.isArray(v)) v.forEach(visit);
      else if (v && typeof v.type === "string") visit(v);
    }
  };
  visit(node);
  return found;
}

function main() {
  const out = path.resolve(process.argv[2]);
  const manifest = JSON.parse(fs.readFileSync(path.join(out, "unbundle.json"), "utf8"));
  const moduleFiles = new Set(manifest.modules.map((m) => path.join(out, m.path)));
  const ids = new Map(manifest.modules.map((m) => [String(m.id), path.join(out, m.path)]));
  const causes = {};
  const examples = {};
  let total = 0;
  for (const file of files(out, [])) {
    if (file.endsWith("unbundle-loader.cjs") || file.endsWith("esbuild-runtime.cjs") || file.endsWith("unbundle.json")) continue;
    const p = parsed(file);
    if (!p) {
      const n = (fs.readFileSync(file, "utf8").match(/\(0, /g) || []).length;
      causes["file does not parse"] = (causes["file does not parse"] || 0) + n;
      continue;
    }
    if (!p.text.includes("(0, ")) continue;
    // A file of a nested bundle kept whole: under `modules/X/` beside `modules/X.cjs`.
    const nested = [".cjs", ".js", ".mjs"].some((e) => fs.existsSync(path.dirname(file) + e));
    const own = !moduleFiles.has(file) && !nested;
    const ctx = { file, ids, passed: passed(p.text, out), wrappers: new Map() };
    // The bundle file's `var x = H(__pilotfish_load.commonjs("modules/x.cjs", ...))`.
    for (const m of p.text.matchAll(/var ([\w$]+) = (?:[\w$]+\()?__pilotfish_load\.commonjs\("([^"]+)"/g)) ctx.wrappers.set(m[1], path.join(out, m[2]));
    let manager;
    try {
      manager = escope.analyze(p.ast, { ecmaVersion: 2022, sourceType: p.sourceType, nodejsScope: p.sourceType === "script" });
    } catch (e) {
      causes[`not analysed: ${e.message.slice(0, 60)}`] = (causes[`not analysed: ${e.message.slice(0, 60)}`] || 0) + (p.text.match(/\(0, /g) || []).length;
      continue;
    }
    const refs = new Map();
    for (const sc of manager.scopes) for (const r of sc.references) refs.set(r.identifier, r);
    walk(p.ast, (node) => {
      const callee = node.type === "CallExpression" ? node.callee : node.type === "TaggedTemplateExpression" ? node.tag : null;
      if (!callee || callee.type !== "SequenceExpression" || callee.expressions.length !== 2) return;
      const [zero, member] = callee.expressions;
      if (zero.type !== "Literal" || zero.value !== 0 || member.type !== "MemberExpression") return;
      total++;
      const name = member.computed ? "[computed]" : member.property.name;
      let cause;
      if (member.object.type !== "Identifier") {
        const o = member.object;
        if (o.type === "MemberExpression" && o.object.type === "Identifier" && o.object.name === "__pilotfish_live")
          cause = "receiver is a bundle name read live (__pilotfish_live.x.f)";
        else if (o.type === "LogicalExpression") cause = "receiver is babel's lazy interop (_x || _load_x()).f";
        else if (o.type === "CallExpression") {
          const s = source(o, { file, ids, passed: new Map(), wrappers: new Map() });
          cause = s.target
            ? `receiver is require(ID) itself: module: ${exportForm(s.target, name, false)}`
            : "receiver is a call's result (babel's lazy _x().f)";
        }
        else cause = `receiver is a ${o.type}`;
      }
      else {
        const r = refs.get(member.object);
        const v = r && value(r.resolved);
        if (member.object.name === "__pilotfish_live") cause = "pilotfish's live accessor (__pilotfish_live.f)";
        else if (!r || !r.resolved) cause = "receiver is a global";
        else if (v.param) cause = "receiver is a parameter (nested bundle or runtime)";
        else if (v.import) cause = "receiver is an import binding";
        else if (!v.expr) cause = `receiver bound ${v.many} times`;
        else {
          const s = source(v.expr, ctx);
          if (s.kind) cause = s.kind + (s.wrapped ? ` (through ${s.wrapped})` : "");
          else {
            const wrap = s.wrapped ? (v.expr.callee && /Default|Star/.test(v.expr.callee.name) ? "interop wrapper" : "__toESM-like wrapper") : "plain";
            cause = `module: ${exportForm(s.target, name, s.wrapped)} [${wrap}]`;
          }
        }
      }
      if (own) cause = `bundle's own code: ${cause}`;
      else if (nested) cause = `in a nested bundle kept whole: ${cause}`;
      causes[cause] = (causes[cause] || 0) + 1;
      if (!examples[cause]) examples[cause] = `${path.relative(out, file)}: ${p.text.slice(node.start, Math.min(node.end, node.start + 80))}`;
    });
  }
  console.log(JSON.stringify({ out, total, causes, examples }));
}

main();
