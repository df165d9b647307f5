// Starts a language server (`node SERVER --stdio`, with the node given) and sends it an LSP
// `initialize` request as a plain editor would; prints the result as one line of JSON and
// stops the server. Used to check that an unbundled language server answers as the bundle
// does: `node initialize.js NODE SERVER`.
'use strict';
const { spawn } = require('node:child_process');

const [node, server] = process.argv.slice(2);
if (!node || !server) {
  console.error('usage: node initialize.js NODE SERVER');
  process.exit(2);
}
const child = spawn(node, [server, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
const body = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    processId: null,
    rootUri: null,
    // What any editor says it can do; some servers read these without checking.
    capabilities: { textDocument: { hover: {}, completion: {} }, workspace: { workspaceFolders: true } },
    clientInfo: { name: 'pilotfish-test', version: '1' },
  },
});
child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
let buffer = Buffer.alloc(0);
const done = (code, line) => {
  console.log(line);
  child.kill();
  process.exit(code);
};
child.stdout.on('data', (data) => {
  buffer = Buffer.concat([buffer, data]);
  for (;;) {
    const headerEnd = buffer.indexOf('\r\n\r\n');
    if (headerEnd < 0) return;
    const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, headerEnd).toString())[1]);
    if (buffer.length < headerEnd + 4 + length) return;
    const message = JSON.parse(buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString());
    buffer = buffer.subarray(headerEnd + 4 + length);
    if (message.id === 1) done(0, JSON.stringify(message.result ?? message.error));
  }
});
child.on('exit', (code) => done(1, `the server exited with ${code} before answering`));
setTimeout(() => done(1, 'no answer to initialize within 60 s'), 60000);
