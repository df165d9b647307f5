// Puts the tree-sitter grammars where chat-lib's parser loads them from.
//
// chat-lib parses blocks (is the cursor at an empty block start, has an answer finished its
// block) with web-tree-sitter and reads `tree-sitter.wasm` and `tree-sitter-<language>.wasm`
// from its `dist` folder, which the npm package does not include. The grammars come from their
// own npm packages, at versions whose language ABI (14) chat-lib's web-tree-sitter 0.23 loads.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const modules = path.join(__dirname, 'node_modules');
const dist = path.join(modules, '@vscode', 'chat-lib', 'dist');
const files = [
  ['web-tree-sitter', 'tree-sitter.wasm'],
  ['tree-sitter-python', 'tree-sitter-python.wasm'],
  ['tree-sitter-javascript', 'tree-sitter-javascript.wasm'],
  ['tree-sitter-typescript', 'tree-sitter-typescript.wasm'],
  ['tree-sitter-typescript', 'tree-sitter-tsx.wasm'],
  ['tree-sitter-go', 'tree-sitter-go.wasm'],
];
for (const [pkg, file] of files) {
  fs.copyFileSync(path.join(modules, pkg, file), path.join(dist, file));
}
console.log(`prepare-grammars: copied ${files.length} wasm files into ${path.relative(__dirname, dist)}`);
