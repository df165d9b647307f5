// Runs a browser bundle under node: `node browser.js FILE...` loads FILE... in order, as a
// page's script tags would, and the scripts the bundle adds to the page later (its async
// chunks) from the folder of the first file.
//
// This is a FAKE browser: `self`, `window` and a `document` that knows only what webpack's
// chunk loading asks of it (create a script element, append it to the head, call its
// onload or onerror). The scripts themselves are real files run by node, each with the global
// object as its `this` (as a page's scripts have `window`) and its own file's `require`, so an
// unbundled output's files find their loader beside them.
'use strict';
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const vm = require('node:vm');

const files = process.argv.slice(2).map((f) => path.resolve(f));
if (files.length === 0) {
  console.error('usage: node browser.js FILE...');
  process.exit(2);
}
const base = path.dirname(files[0]);

// One script, as a page runs it.
function run(file) {
  const own = new Module(file, module);
  own.filename = file;
  own.paths = Module._nodeModulePaths(path.dirname(file));
  const script = vm.compileFunction(fs.readFileSync(file, 'utf8'), ['exports', 'require', 'module', '__filename', '__dirname'], { filename: file });
  script.call(globalThis, own.exports, Module.createRequire(file), own, file, path.dirname(file));
}

function script() {
  const attributes = {};
  return {
    tagName: 'SCRIPT',
    setAttribute(name, value) { attributes[name] = String(value); },
    getAttribute(name) { return attributes[name] ?? null; },
    parentNode: null,
  };
}

const head = {
  appendChild(element) {
    element.parentNode = head;
    setImmediate(() => {
      let event = 'load';
      try {
        run(path.resolve(base, element.src));
      } catch (error) {
        console.error(`browser.js: ${element.src}: ${error.message}`);
        event = 'error';
      }
      const handler = element[`on${event}`];
      if (handler) handler.call(element, { type: event, target: element });
    });
    return element;
  },
  removeChild(element) { element.parentNode = null; return element; },
};

globalThis.self = globalThis;
globalThis.window = globalThis;
globalThis.document = {
  head,
  createElement(tag) {
    if (tag !== 'script') throw new Error(`browser.js: no <${tag}> in this fake browser`);
    return script();
  },
  getElementsByTagName() { return []; },
  querySelector() { return null; },
};
for (const file of files) run(file);
