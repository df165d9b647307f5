// Runs a browser bundle under node: `node browser.js FILE...` loads FILE... in order, as a
// page's script tags would, and the scripts the bundle adds to the page later (its async
// chunks) from the folder of the first file.
//
// This is a FAKE browser: `self`, `window` and a `document` that knows only what webpack's
// chunk loading asks of it (create a script element, append it to the head, call its
// onload or onerror). The scripts themselves are real files run by node, and each is loaded
// with `require`, so an unbundled output's files find their loader beside them.
'use strict';
const path = require('node:path');

const files = process.argv.slice(2).map((f) => path.resolve(f));
if (files.length === 0) {
  console.error('usage: node browser.js FILE...');
  process.exit(2);
}
const base = path.dirname(files[0]);

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
        require(path.resolve(base, element.src));
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
for (const file of files) require(file);
