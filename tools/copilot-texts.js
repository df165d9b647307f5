// Reads the fixed texts of Copilot's prompts that pilotfish does not ship out of Copilot's own
// library, by asking it for prompts through the oracle's operations (oracle/oracle.js), and
// prints them as JSON:
//   source                the library and its version
//   nes_system            the system message of its next-edit request (default model)
//   nes_postscript        the instructions after that request's sections; `{path}` stands for
//                         the current file's path
//   recent_edits_heading  the first line of the recent-edits block of its completion prompt
// Run by tools/copilot-texts.sh after oracle/setup.sh has installed @vscode/chat-lib; nothing
// leaves the process (the oracle's capturing fetcher answers every request).
'use strict';
const path = require('node:path');
const fs = require('node:fs');

const oracle = path.join(__dirname, '..', 'oracle');
const pkg = JSON.parse(fs.readFileSync(path.join(oracle, 'node_modules', '@vscode', 'chat-lib', 'package.json'), 'utf8'));
const { ops } = require(path.join(oracle, 'oracle.js'));

// A file whose path cannot occur in the texts themselves, so that it can be put back as `{path}`.
const FILE = '/pilotfish-current-file-path.ts';

// The two texts of the next-edit request: the system message, and what follows the sections'
// code fence in the user message.
async function nesTexts() {
  const uri = `file://${FILE}`;
  const sent = await ops.nes_request({
    documents: [{ uri, language_id: 'typescript', text: 'class Point {\n}\n\nconst p = new Point();\n' }],
    edits: [{ uri, start: 11, end: 11, text: '3D' }],
    cursor: { uri, offset: 36 },
  });
  if (!sent.url || !Array.isArray(sent.messages) || sent.messages.length !== 2) {
    throw new Error(`chat-lib sent no next-edit request of two messages: ${JSON.stringify(sent).slice(0, 300)}`);
  }
  const [system, user] = sent.messages.map(m => m.content);
  const fence = '\n```\n\n';
  const at = user.lastIndexOf(fence);
  if (at < 0) throw new Error('the user message has no closing code fence before its instructions');
  const parts = user.slice(at + fence.length).split(FILE);
  if (parts.length !== 2) throw new Error(`the instructions name the file ${parts.length - 1} times, not once`);
  return { nes_system: system, nes_postscript: parts.join('{path}') };
}

// The heading of the completion prompt's recent-edits block: its first line, before the first
// edited file's `File:` line.
async function recentEditsHeading() {
  const before = 'def total(prices):\n    result = 0\n    for p in prices:\n        result += p\n    return result\n';
  const after = 'def total(prices):\n    return sum(prices)\n';
  const rendered = await ops.prompt({
    workspaceRoot: '/w',
    document: { path: '/w/app.py', languageId: 'python', text: 'from cart import total\n\nprint(' },
    position: { line: 2, character: 6 },
    openDocuments: [{ path: '/w/cart.py', languageId: 'python', text: after }],
    recentEdits: [{ path: '/w/cart.py', text: before }, { path: '/w/cart.py', text: after }],
    traits: [], codeSnippets: [], diagnostics: [],
    maxPromptTokens: 7692, suffixPercent: 15, tokenizer: 'o200k_base',
  });
  const block = (rendered.context ?? []).find(c => c.includes('\nFile: cart.py\n'));
  if (!block) throw new Error(`chat-lib's prompt has no recent-edits block: ${JSON.stringify(rendered.context).slice(0, 300)}`);
  return { recent_edits_heading: block.slice(0, block.indexOf('\n')) };
}

async function main() {
  const out = { source: `@vscode/chat-lib ${pkg.version}`, ...(await nesTexts()), ...(await recentEditsHeading()) };
  process.stdout.write(JSON.stringify(out, null, 2) + '\n');
}

main().then(() => process.exit(0), e => {
  process.stderr.write(`tools/copilot-texts.js: ${e && e.stack || e}\n`);
  process.exit(1);
});
