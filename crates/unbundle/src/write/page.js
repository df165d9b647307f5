// Written by `pilotfish unbundle` for a bundle made for a web page: runs the page's scripts
// (the bundle's files, in the order the page loads them) one after the other, as the page
// did, so that `node` on this file runs the whole program. Where node has no browser, it
// stands in for the little of one that webpack's chunk loading uses: `self` and `window` name
// the global object, and `document` makes script elements whose files it runs when they are
// added to the page (the async chunks, found beside this file).
"use strict";
const fs = require("fs");
const Module = require("module");
const path = require("path");
const url = require("url");
const vm = require("vm");

const SCRIPTS = /* the page's scripts */ [];

const here = (src) => (String(src).startsWith("file:") ? url.fileURLToPath(src) : path.resolve(__dirname, String(src)));

function element(tag) {
  const attributes = {};
  return {
    tagName: String(tag).toUpperCase(),
    parentNode: null,
    setAttribute(name, value) { attributes[name] = String(value); },
    getAttribute(name) { return name in attributes ? attributes[name] : null; },
    removeAttribute(name) { delete attributes[name]; },
  };
}

// Runs a script as its tag would: with the global object as its `this` (a page's scripts see
// `window` there), and `document.currentScript` naming it meanwhile (webpack finds its public
// path from it when the bundle asks it to). It also gets the CommonJS names of its file, which
// the unbundled files use to find their loader.
function run(file, tag) {
  const previous = document.currentScript;
  document.currentScript = tag;
  try {
    const own = new Module(file, module);
    own.filename = file;
    own.paths = Module._nodeModulePaths(path.dirname(file));
    const source = fs.readFileSync(file, "utf8").replace(/^#!.*/, "");
    const script = vm.compileFunction(source, ["exports", "require", "module", "__filename", "__dirname"], { filename: file });
    script.call(globalThis, own.exports, Module.createRequire(file), own, file, path.dirname(file));
  } finally {
    document.currentScript = previous;
  }
}

const head = {
  appendChild(child) {
    child.parentNode = head;
    // A browser runs an added script later, then tells its `onload` (or `onerror`).
    setImmediate(() => {
      let event = "load";
      if (child.tagName === "SCRIPT" && child.src) {
        try {
          run(here(child.src), child);
        } catch (error) {
          console.error(`${child.src}: ${error && error.message}`);
          event = "error";
        }
      }
      const handler = child[`on${event}`];
      if (typeof handler === "function") handler.call(child, { type: event, target: child });
    });
    return child;
  },
  removeChild(child) {
    child.parentNode = null;
    return child;
  },
};

if (typeof self === "undefined") globalThis.self = globalThis;
if (typeof window === "undefined") globalThis.window = globalThis;
if (typeof document === "undefined") {
  globalThis.document = {
    head,
    body: head,
    currentScript: null,
    createElement: element,
    getElementsByTagName: () => [],
    querySelector: () => null,
    querySelectorAll: () => [],
  };
}

for (const script of SCRIPTS) {
  const tag = element("script");
  tag.src = url.pathToFileURL(path.join(__dirname, script)).href;
  run(path.join(__dirname, script), tag);
}
