// Written by `pilotfish unbundle` next to the bundle's files: gives the bundle's runtime a
// module table whose functions run the module files. Each module file is the body of the
// bundle's module function, compiled with the parameters webpack passes (`module`,
// `exports`, `require`), the file's own `module`, `exports` and `require` under `__node_*`
// names, and `__filename` and `__dirname` of the file that holds the table.
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const PARAMETERS = ["module", "exports", "require", "__node_module", "__node_exports", "__node_require", "__filename", "__dirname"];

module.exports = (nodeModule, nodeRequire) => {
  const wrap = (file) => {
    let factory;
    return function (module, exports, require) {
      if (!factory) {
        const filename = path.join(__dirname, file);
        factory = vm.compileFunction(fs.readFileSync(filename, "utf8"), PARAMETERS, { filename });
      }
      return factory.call(this, module, exports, require, nodeModule, nodeModule.exports, nodeRequire, nodeModule.filename, path.dirname(nodeModule.filename));
    };
  };
  return (table) => {
    // Arrays keep their holes: an index is a module id.
    if (Array.isArray(table)) return table.map((file) => wrap(file));
    const modules = {};
    for (const id of Object.keys(table)) modules[id] = wrap(table[id]);
    return modules;
  };
};
