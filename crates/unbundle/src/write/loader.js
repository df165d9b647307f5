// Written by `pilotfish unbundle` next to the bundle's files: gives the bundle's runtime a
// module table whose functions run the module files (or, for esbuild, one function per
// CommonJS module and per wrapped ES module). Each module file is the body of the
// bundle's module function, compiled with the parameters webpack passes (`module`,
// `exports`, `require`), the file's own `module`, `exports` and `require` under `__node_*`
// names, `__filename` and `__dirname` of the file that holds the table, and that file's
// `import.meta` and an `import()` of its own (`entry`), as `__pilotfish_import_meta` and
// `__pilotfish_import`: a module file reads them there, so that it parses as a function body
// and still sees the bundle's URL and imports from the bundle's folder. A module file that
// builds code at run time calls `Function` as `__pilotfish_function`, defined here: code that
// node's `vm` compiled cannot `import()`, and the code `Function` builds imports as the script
// that called `Function` does, here, beside the bundle.
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const COMMONJS = ["exports", "module", "require", "__node_module", "__node_exports", "__filename", "__dirname", "__pilotfish_import_meta", "__pilotfish_import", "__pilotfish_function", "__pilotfish_load"];
const PARAMETERS = ["module", "exports", "require", "__node_module", "__node_exports", "__node_require", "__filename", "__dirname", "__pilotfish_import_meta", "__pilotfish_import", "__pilotfish_function", "__pilotfish_load"];

// `Function`, called from this file: `new Function(...)` and `Function(...)` build the same
// function, and `instanceof` and `prototype` are `Function`'s.
function PilotfishFunction(...args) {
  return Reflect.construct(Function, args);
}
PilotfishFunction.prototype = Function.prototype;
Object.defineProperty(PilotfishFunction, "name", { value: "Function" });

// For each bundle file (its path from this folder), the module files of its esbuild CommonJS
// wrappers and ES modules (paths from this folder) with the names the bundle called each by:
// a CommonJS wrapper's (`require_y`), or an ES module's initializer, `__toCommonJS` helper and
// namespace object. A module file that says `require("../x/y.js")` of one of them (where the
// bundle's said `require_y()`, or `(init_y(), __toCommonJS(y_exports))`) makes the same calls
// (see `requireOf`).
const LINKS = /* pilotfish: links */ {};

// The `require` a module file of `bundle` at `filename` is given: node's own (`nodeRequire`),
// but where the file requires a module file of the bundle that the bundle passes it the
// wrapper of (among `names`, with `values()`), that wrapper's call, as the bundle made it.
// A proxy, so `require.resolve`, `require.cache` and the rest read node's.
function requireOf(nodeRequire, bundle, filename, text, names, values) {
  const links = LINKS[bundle];
  if (!links || !/require\("\.\.?\//.test(text)) return nodeRequire;
  const from = path.dirname(filename);
  return new Proxy(nodeRequire, {
    apply(target, self, args) {
      if (args.length === 1 && typeof args[0] === "string" && args[0].startsWith(".")) {
        const file = path.relative(__dirname, path.resolve(from, args[0])).split(path.sep).join("/");
        const link = Object.prototype.hasOwnProperty.call(links, file) ? links[file] : undefined;
        if (typeof link === "string" && names.includes(link)) return values()[names.indexOf(link)]();
        // An ES module: `(init_x(), __toCommonJS(x_exports))`, as the bundle wrote it.
        if (Array.isArray(link) && link.every((name) => names.includes(name))) {
          const [init, helper, namespace] = link.map((name) => names.indexOf(name));
          values()[init]();
          const after = values();
          return after[helper](after[namespace]);
        }
      }
      return Reflect.apply(target, self, args);
    },
  });
}

module.exports = (nodeModule, nodeRequire, entry = { meta: undefined, load: (specifier, options) => import(specifier, options) }) => {
  const bundle = path.relative(__dirname, nodeModule.filename).split(path.sep).join("/");
  const wrap = (file) => {
    let factory;
    return function (module, exports, require) {
      if (!factory) {
        const filename = path.join(__dirname, file);
        factory = vm.compileFunction(fs.readFileSync(filename, "utf8"), PARAMETERS, { filename });
      }
      return factory.call(this, module, exports, require, nodeModule, nodeModule.exports, nodeRequire, nodeModule.filename, path.dirname(nodeModule.filename), entry.meta, entry.load, PilotfishFunction, load);
    };
  };
  const load = (table) => {
    // Arrays keep their holes: an index is a module id.
    if (Array.isArray(table)) return table.map((file) => wrap(file));
    const modules = {};
    for (const id of Object.keys(table)) modules[id] = wrap(table[id]);
    return modules;
  };
  // webpack 5's entry module, which the bundle inlined into its runtime: webpack gives it no
  // module object of its own, so it gets a fresh one.
  load.entry = function (file, require) {
    const module = { exports: {} };
    return wrap(file).call(this, module, module.exports, require);
  };
  // esbuild's CommonJS modules: `(exports, module)`, node's own `require`, and the bundle's
  // top-level names the module uses (`names`, their values from `values()` when it runs).
  load.commonjs = (file, names, values) => {
    let factory;
    let fileRequire;
    return function (exports, module) {
      const filename = path.join(__dirname, file);
      if (!factory) {
        const text = fs.readFileSync(filename, "utf8");
        factory = vm.compileFunction(text, [...COMMONJS, ...names], { filename });
        fileRequire = requireOf(nodeRequire, bundle, filename, text, names, values);
      }
      return factory.call(this, exports, module, fileRequire, nodeModule, nodeModule.exports, nodeModule.filename, path.dirname(nodeModule.filename), entry.meta, entry.load, PilotfishFunction, load, ...values());
    };
  };
  // esbuild's wrapped ES modules: the module file runs where esbuild ran the module's
  // initializer, with its namespace object as `exports` (the file defines the getters other
  // code reads its names through), node's own `module` and `require`, and the bundle's
  // top-level names it uses.
  load.esm = (file, namespace, names, values, asynchronous) => {
    let factory;
    let fileRequire;
    return function () {
      const filename = path.join(__dirname, file);
      if (!factory) {
        // An async initializer's body (top-level `await`) runs in an async arrow on the
        // file's first line, so line numbers stay the file's; the arrow's `this` is the
        // initializer's.
        const text = fs.readFileSync(filename, "utf8");
        const body = asynchronous ? `return (async () => {${text}\n})();` : text;
        factory = vm.compileFunction(body, [...COMMONJS, ...names], { filename });
        fileRequire = requireOf(nodeRequire, bundle, filename, text, names, values);
      }
      return factory.call(this, namespace, nodeModule, fileRequire, nodeModule, nodeModule.exports, nodeModule.filename, path.dirname(nodeModule.filename), entry.meta, entry.load, PilotfishFunction, load, ...values());
    };
  };
  // A module of a webpack bundle nested in another module: as a table's, with the names of
  // the code around it that it reads (`names`, their values from `values()` when it runs).
  // An arrow module's `this` is the code around the table's: `names` then starts with
  // `this`, and the file runs with the value read there.
  load.nested = (file, names, values) => {
    let factory;
    const lexical = names[0] === "this";
    const own = lexical ? names.slice(1) : names;
    return function (module, exports, require) {
      const filename = path.join(__dirname, file);
      if (!factory) {
        factory = vm.compileFunction(fs.readFileSync(filename, "utf8"), [...PARAMETERS, ...own], { filename });
      }
      const given = values();
      const self = lexical ? given.shift() : this;
      return factory.call(self, module, exports, require, nodeModule, nodeModule.exports, nodeRequire, nodeModule.filename, path.dirname(nodeModule.filename), entry.meta, entry.load, PilotfishFunction, load, ...given);
    };
  };
  // Bun's `__esm(async () => {...})`: the same, returning the initializer's promise.
  load.esmAsync = (file, namespace, names, values) => load.esm(file, namespace, names, values, true);
  return load;
};
