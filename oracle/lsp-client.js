// A real LSP client for `pilotfish lsp`: VS Code's own JSON-RPC library (vscode-jsonrpc) over
// the server's standard input and output. It runs a short editing session in both protocols
// (LSP 3.18 inline completions, and Copilot's plugins' methods) and prints what it got as one
// JSON object, for the Rust test to check.
//
// Usage: node lsp-client.js PILOTFISH_BINARY -- [server arguments...]
'use strict';
const { spawn } = require('node:child_process');
const rpc = require('vscode-jsonrpc/node');

async function main() {
  const [binary, sep, ...args] = process.argv.slice(2);
  if (!binary || sep !== '--') throw new Error('usage: lsp-client.js BINARY -- ARGS...');
  const server = spawn(binary, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const connection = rpc.createMessageConnection(
    new rpc.StreamMessageReader(server.stdout),
    new rpc.StreamMessageWriter(server.stdin),
  );
  const notifications = [];
  connection.onNotification((method, params) => notifications.push({ method, params }));
  connection.listen();

  const uri = 'file:///tmp/pilotfish-client/shop/orders.py';
  const text = 'from cart import total\n\n\ndef order_total(items):\n    amount = \n    return amount\n';
  const out = {};
  out.initialize = await connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri: 'file:///tmp/pilotfish-client',
    capabilities: { general: { positionEncodings: ['utf-16'] } },
    initializationOptions: { editorInfo: { name: 'vscode-jsonrpc', version: '10' }, editorPluginInfo: { name: 'test', version: '1' } },
  });
  connection.sendNotification('initialized', {});
  connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: 1, text } });
  connection.sendNotification('textDocument/didChange', {
    textDocument: { uri, version: 2 },
    contentChanges: [{ range: { start: { line: 4, character: 13 }, end: { line: 4, character: 13 } }, text: 't' }],
  });
  connection.sendNotification('textDocument/didFocus', { textDocument: { uri } });
  out.inline = await connection.sendRequest('textDocument/inlineCompletion', {
    textDocument: { uri }, position: { line: 4, character: 14 }, context: { triggerKind: 1 },
  });
  out.getCompletions = await connection.sendRequest('getCompletions', {
    doc: { uri, version: 2, position: { line: 4, character: 14 }, insertSpaces: true, tabSize: 4 },
    textDocument: { uri, version: 2 }, position: { line: 4, character: 14 }, _: true,
  });
  out.cycling = await connection.sendRequest('getCompletionsCycling', {
    doc: { uri, version: 2, position: { line: 4, character: 14 } }, _: true,
  });
  out.checkStatus = await connection.sendRequest('checkStatus', { _: true });
  out.stats = await connection.sendRequest('pilotfish/stats', {});
  out.shutdown = await connection.sendRequest('shutdown');
  connection.sendNotification('exit');
  out.exitCode = await new Promise(resolve => server.on('exit', code => resolve(code)));
  out.notifications = notifications;
  connection.dispose();
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch(e => {
  process.stderr.write(`lsp-client: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
