// Writes the vocabularies that chat-lib's completions tokenizer loads from its `dist` folder.
//
// chat-lib ships cl100k_base and o200k_base as plain-text `.tiktoken` files (one
// "base64-bytes rank" line per token) but its completions tokenizer reads a binary form from
// `dist/<name>.tiktoken`: for each token in rank order, the byte length as an unsigned LEB128
// number, then the bytes. Without those files it silently falls back to an approximation, and
// every comparison would be meaningless, so this writes them and then proves them.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const lib = path.join(__dirname, 'node_modules', '@vscode', 'chat-lib');
const plainDir = path.join(lib, 'dist', 'src', '_internal', 'platform', 'tokenizer', 'node');

function leb128(n) {
  const out = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return Buffer.from(out);
}

for (const name of ['cl100k_base', 'o200k_base']) {
  const lines = fs.readFileSync(path.join(plainDir, `${name}.tiktoken`), 'utf8').split('\n').filter(l => l.length > 0);
  const parts = [];
  lines.forEach((line, expectedRank) => {
    const [b64, rank] = line.split(' ');
    if (Number(rank) !== expectedRank) {
      throw new Error(`${name}: rank ${rank} at line ${expectedRank + 1}; the binary form needs consecutive ranks`);
    }
    const bytes = Buffer.from(b64, 'base64');
    parts.push(leb128(bytes.length), bytes);
  });
  const out = path.join(lib, 'dist', `${name}.tiktoken`);
  fs.writeFileSync(out, Buffer.concat(parts));
  console.log(`prepare-vocab: wrote ${lines.length} tokens to ${path.relative(__dirname, out)}`);
}
