// The parser the counting scripts (helper-calls.js, receiverless-calls.js) share: acorn from
// tools/bundlers' packages, with the options a bundle or an unbundled output needs (a hashbang,
// `return` or `await` at the top level, imports anywhere). `parse(text, first)` tries `first`
// ("module" or "script") as the source type, then the other; it returns the tree and the type
// that parsed.
"use strict";
const path = require("path");
const here = path.join(__dirname, "..", "bundlers", "node_modules");
const acorn = require(path.join(here, "acorn"));

const OPTIONS = {
  ecmaVersion: "latest",
  allowReturnOutsideFunction: true,
  allowImportExportEverywhere: true,
  allowAwaitOutsideFunction: true,
  allowHashBang: true,
  ranges: true,
};

function parse(text, first) {
  const second = first === "module" ? "script" : "module";
  try {
    return [acorn.parse(text, { ...OPTIONS, sourceType: first }), first];
  } catch {
    return [acorn.parse(text, { ...OPTIONS, sourceType: second }), second];
  }
}

module.exports = { parse };
