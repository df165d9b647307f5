// The chat view in a real VS Code in a real browser: code-server with the packaged .vsix in
// headless Chromium, `pilotfish acp` started by the extension, and a scripted chat model (a
// fake that plays a model's moves, started by the Rust test). Step by step, each with a
// screenshot: `pilotfish: Open Chat` opens the view; a prompt's answer streams in as Markdown;
// the agent edits the open file (with an unsaved change the model must see), the edit shows in
// the editor and its Undo puts the text back; a command is asked about, rejected (not run),
// then asked again and allowed (run); a stalled answer is stopped with Stop; after
// `pilotfish: Restart` the view answers again, in the custom agent's mode picked from the
// list, to a prompt file picked after typing `/`. The workspace's `.vscode/mcp.json` names an
// MCP server (through a script that leaves a marker when it starts): allowed in the view at
// the first session's first prompt it starts, rejected in the second session it does not.
//
// Run by `crates/cli/tests/it/vscode_chat.rs` under node 24, with these in the environment:
//   CODE_SERVER_DIR  tools/code-server.sh's folder (code-server and puppeteer-core)
//   VSIX             tools/vscode-extension.sh's package
//   PILOTFISH        the pilotfish binary
//   CHAT_ENDPOINT    the scripted chat model's address
//   GGUF             when set, instead of all that: no chat endpoint, `pilotfish.gguf` names this
//                    model file, and the chat must answer from the one llama-server the
//                    language server started for it
//   MCP_ENTRY        the MCP reference server's script (server-everything), run by node
//   WORK             an empty folder for the workspace and code-server's state
//   ARTIFACTS        where screenshots go
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const {
  env, log, until, writeSettings, shot: shotIn, runCommand, openFile, editorText, inWorkbench, runScript,
} = require('./code-server');

const work = env('WORK');
const artifacts = env('ARTIFACTS');
const shot = (page, name) => shotIn(page, artifacts, name);
const ws = path.join(work, 'workspace');
const mcpStarted = path.join(work, 'mcp-started');

function workspace() {
  fs.mkdirSync(ws, { recursive: true });
  fs.writeFileSync(
    path.join(ws, 'calc.py'),
    'def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n',
  );
  if (process.env.GGUF) {
    writeSettings(work, {}, { 'pilotfish.path': env('PILOTFISH'), 'pilotfish.gguf': process.env.GGUF });
    return;
  }
  // The workspace's MCP server, as VS Code users keep it; the script leaves a marker.
  const script = path.join(work, 'mcp-everything.sh');
  fs.writeFileSync(script, `#!/bin/sh\ntouch '${mcpStarted}'\nexec '${process.execPath}' '${env('MCP_ENTRY')}' stdio\n`);
  fs.chmodSync(script, 0o755);
  fs.mkdirSync(path.join(ws, '.vscode'), { recursive: true });
  fs.writeFileSync(
    path.join(ws, '.vscode', 'mcp.json'),
    `{\n  "servers": {\n    // The MCP reference server\n    "everything": { "type": "stdio", "command": "${script}" },\n  },\n}\n`,
  );
  // A custom agent (a mode to pick) and a prompt file (a slash command).
  fs.mkdirSync(path.join(ws, '.github', 'agents'), { recursive: true });
  fs.writeFileSync(
    path.join(ws, '.github', 'agents', 'reviewer.agent.md'),
    '---\ndescription: Reviews code without changing it\ntools: [read_file]\n---\nYou are a strict reviewer. Never edit.\n',
  );
  fs.mkdirSync(path.join(ws, '.github', 'prompts'), { recursive: true });
  fs.writeFileSync(
    path.join(ws, '.github', 'prompts', 'explain.prompt.md'),
    '---\ndescription: Explains a file line by line\n---\nExplain this file line by line.\n',
  );
  writeSettings(
    work,
    // Next edits would ask the same scripted model after each keystroke and take its turns
    // (next-edit.js tests them).
    {
      'pilotfish.chat.endpoint': env('CHAT_ENDPOINT'),
      'pilotfish.endpoint': 'http://127.0.0.1:9',
      'pilotfish.nextEdit.enable': false,
    },
    { 'pilotfish.path': env('PILOTFISH') },
  );
}

/** The chat view's frame: the webview frame whose page holds the chat's log and input. */
function chatFrame(page) {
  return until('the chat view', async () => {
    for (const frame of page.frames()) {
      const ours = await frame
        .evaluate(() => Boolean(document.querySelector('#log[role="log"]') && document.querySelector('#input')))
        .catch(() => false);
      if (ours) return frame;
    }
    return null;
  }, 60);
}

/** What the view shows, element by element, as a screen reader would name it. */
function transcript(frame) {
  return frame.evaluate(() =>
    [...document.querySelectorAll('#log > *')].map((e) => ({
      role: e.getAttribute('role'),
      label: e.getAttribute('aria-label'),
      status: e.getAttribute('data-status'),
      text: e.textContent,
    })),
  );
}

async function ask(frame, text) {
  const input = await frame.waitForSelector('#input');
  await input.click();
  await input.type(text);
  await input.press('Enter');
  log(`asked: ${text}`);
}

/** Clicks the button whose text is `text` inside the last element matching `within`. */
async function clickButton(frame, within, text) {
  const ok = await until(`a "${text}" button in ${within}`, () =>
    frame.evaluate(
      (w, t) => {
        const boxes = [...document.querySelectorAll(w)];
        const box = boxes[boxes.length - 1];
        const b = box && [...box.querySelectorAll('button')].find((x) => x.textContent === t);
        if (!b || b.disabled) return false;
        b.click();
        return true;
      },
      within,
      text,
    ),
  30);
  log(`clicked ${text}`);
  return ok;
}

/** Waits for the view's last agent message to hold `needle`; returns each text it showed. */
async function answerHolds(frame, needle, seconds = 30) {
  return until(`an answer holding "${needle}"`, async () => {
    const t = await transcript(frame);
    const last = t.filter((e) => e.label === 'pilotfish').pop();
    return last && last.text.includes(needle) && last.text;
  }, seconds);
}

/** Waits for the tool call titled with `title` to reach `status`; returns it. */
function toolCall(frame, title, status, seconds = 30) {
  return until(`the tool call "${title}" ${status}`, async () => {
    const t = await transcript(frame);
    return t.find((e) => e.label && e.label.startsWith('Tool call:') && e.label.includes(title) && e.status === status);
  }, seconds);
}

async function turnEnded(frame) {
  await until('the turn to end (Stop disabled)', () => frame.evaluate(() => document.querySelector('#stop').disabled), 30);
}

/** Answers the question about the workspace's MCP server with `choice`. */
async function mcpQuestion(page, frame, choice) {
  await until('the question about the MCP server', () =>
    frame.evaluate(() =>
      [...document.querySelectorAll('[role="alertdialog"]')].some((e) => (e.getAttribute('aria-label') || '').includes('MCP server everything')),
    ),
  60);
  if (choice === 'Start it this time') await shot(page, 'chat-2-mcp-server');
  await clickButton(frame, '[role="alertdialog"]', choice);
}

async function streams(page, frame) {
  await ask(frame, 'How do I use square areas?');
  await mcpQuestion(page, frame, 'Start it this time');
  await until('the allowed MCP server to start', () => fs.existsSync(mcpStarted), 30);
  log('allowed: the MCP server started');
  // The scripted answer comes in pieces a moment apart: the first is seen before the last.
  const seen = new Set();
  await until('the answer to stream in pieces', async () => {
    const t = await transcript(frame);
    const last = t.filter((e) => e.label === 'pilotfish').pop();
    if (last) seen.add(last.text);
    return last && last.text.includes('print(square_area(3))') && last.text;
  }, 30);
  if (seen.size < 2) throw new Error(`the answer did not stream: seen only ${[...seen].join(' | ')}`);
  const code = await frame.evaluate(() => {
    const pre = [...document.querySelectorAll('article[aria-label="pilotfish"] pre code')].pop();
    return pre && pre.textContent;
  });
  if (!code || !code.includes('print(square_area(3))')) throw new Error(`no code block in the answer: ${code}`);
  const bold = await frame.evaluate(() => Boolean(document.querySelector('article[aria-label="pilotfish"] strong')));
  if (!bold) throw new Error('the Markdown emphasis is not rendered');
  log(`the answer streamed in ${seen.size} states, with a code block`);
  await turnEnded(frame);
  await shot(page, 'chat-2-answer');
}

async function editsAndUndoes(page, frame) {
  // An unsaved change in the open editor: the model must read it through the view.
  await openFile(page, 'calc.py', { explorer: false });
  await page.click('.editor-instance .view-lines');
  await page.keyboard.down('Control');
  await page.keyboard.press('End');
  await page.keyboard.up('Control');
  await page.keyboard.type('# unsaved note\n', { delay: 20 });
  await ask(frame, 'Fix add');
  await toolCall(frame, 'calc.py', 'done');
  const edited = await until('the edit in the editor', async () => {
    const t = await editorText(page);
    return t.includes('return a + b') && t;
  }, 20);
  if (!edited.includes('# unsaved note')) throw new Error(`the edit lost the unsaved text:\n${edited}`);
  const diff = await frame.evaluate(() => [...document.querySelectorAll('.diff .add')].map((e) => e.textContent).join('\n'));
  if (!diff.includes('return a + b')) throw new Error(`the diff does not show the change: ${diff}`);
  log('the edit shows in the editor, unsaved text kept, and as a diff in the view');
  await answerHolds(frame, 'add adds now');
  await shot(page, 'chat-3-edit');
  await clickButton(frame, 'section[data-status="done"]', 'Undo');
  await until('the edit undone in the editor', async () => {
    const t = await editorText(page);
    return t.includes('return a - b') && !t.includes('return a + b') && t.includes('# unsaved note');
  }, 20);
  await until('the view to say Undone', () => frame.evaluate(() => document.body.textContent.includes('Undone')), 10);
  log('Undo put the text back');
  await shot(page, 'chat-4-undone');
}

async function asksAboutCommands(page, frame) {
  const denied = path.join(ws, 'denied.flag');
  const allowed = path.join(ws, 'allowed.flag');
  await ask(frame, 'Make the denied flag');
  await until('the permission question', () => frame.$('[role="alertdialog"]'), 30);
  const labels = await frame.evaluate(() =>
    [...document.querySelectorAll('[role="alertdialog"] button')].map((b) => b.textContent),
  );
  for (const want of ['Allow once', 'Reject']) {
    if (!labels.includes(want)) throw new Error(`no "${want}" among the question's buttons: ${labels}`);
  }
  if (!labels.some((l) => l.startsWith('Always allow'))) throw new Error(`no "Always allow" button: ${labels}`);
  await shot(page, 'chat-5-permission');
  await clickButton(frame, '[role="alertdialog"]', 'Reject');
  await answerHolds(frame, 'Not run');
  await turnEnded(frame);
  if (fs.existsSync(denied)) throw new Error('the rejected command ran');
  log('rejected: the command did not run');
  await ask(frame, 'Make the allowed flag');
  await until('the second question', () => frame.$('[role="alertdialog"]'), 30);
  await clickButton(frame, '[role="alertdialog"]', 'Allow once');
  await until('the allowed command to run', () => fs.existsSync(allowed), 30);
  await answerHolds(frame, 'Made it');
  await turnEnded(frame);
  log('allowed: the command ran');
  await shot(page, 'chat-6-allowed');
}

async function stops(page, frame) {
  await ask(frame, 'Think for a long time');
  await answerHolds(frame, 'Thinking');
  await clickButton(frame, '.composer', 'Stop');
  await until('the turn to stop', () => frame.evaluate(() => document.body.textContent.includes('Stopped.')), 10);
  await turnEnded(frame);
  log('Stop cancelled the turn');
  await shot(page, 'chat-7-stopped');
}

/** Picks the custom agent `reviewer` as the mode, then the prompt file `/explain` from the
 * list that typing `/` shows, and sends it. */
async function customAgentAndPromptFile(frame) {
  await until('the custom agent among the modes', () =>
    frame.evaluate(() => [...document.querySelectorAll('#mode option')].some((o) => o.textContent === 'reviewer')),
  30);
  await frame.select('#mode', 'agent:reviewer');
  await until('the mode to be switched', () => frame.evaluate(() => document.querySelector('#mode').value === 'agent:reviewer'), 10);
  const input = await frame.waitForSelector('#input');
  await input.click();
  await input.type('/ex');
  const option = await until('/explain in the prompt file list', () => frame.$('#commands [role="option"][aria-label="/explain"]'), 30);
  await option.click();
  await input.type('calc.py');
  const typed = await frame.evaluate(() => document.querySelector('#input').value);
  if (typed !== '/explain calc.py') throw new Error(`picking /explain left "${typed}" in the box`);
  await input.press('Enter');
  log('sent /explain calc.py as the reviewer');
}

/** The agent's inspector: the last request, with the custom agent's system prompt, the prompt
 * file's text, the customizations found and the one tool offered. */
async function inspects(page) {
  await runCommand(page, "pilotfish: Inspect the Agent's Last Request");
  const seen = await until('the agent request in the inspector', async () => {
    for (const frame of page.frames()) {
      const found = await frame
        .evaluate(() => {
          const part = (p) => {
            const e = document.querySelector(`[data-part="${p}"]`);
            return e ? e.textContent : null;
          };
          return part('system') && { system: part('system'), tools: part('tools'), customizations: part('customizations'), body: document.body.innerText };
        })
        .catch(() => null);
      if (found) return found;
    }
    return null;
  }, 30);
  if (!seen.system.includes('You are a strict reviewer')) throw new Error(`the inspector's system prompt: ${seen.system}`);
  if (!seen.tools.includes('read_file') || seen.tools.includes('run_in_terminal')) throw new Error(`the inspector's tools: ${seen.tools}`);
  if (!seen.customizations.includes('reviewer.agent.md')) throw new Error(`the inspector's customizations: ${seen.customizations}`);
  if (!seen.body.includes('Explain this file line by line.') || !seen.body.includes(env('CHAT_ENDPOINT'))) {
    throw new Error('the inspector does not show the task or the endpoint');
  }
  log('the inspector shows the agent\'s last request');
  await shot(page, 'chat-9-inspector');
}

/** The llama-server processes serving `model`. */
function serversOf(model) {
  const { execFileSync } = require('node:child_process');
  return execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes('llama-server') && l.includes(model));
}

/** With `pilotfish.gguf` and no chat endpoint, the chat (in Chat mode: SmolLM2 is too small
 * to call tools well) streams an answer from the model server the language server started:
 * one server for that file, not two. */
async function sharesTheManagedServer(page, frame) {
  await frame.select('#mode', 'chat');
  await until('the chat mode', () => frame.evaluate(() => document.querySelector('#mode').value === 'chat'), 10);
  await ask(frame, 'Say hello.');
  // A model this small may ramble on for its whole answer limit: its first words are enough,
  // and Stop then ends the turn (and frees the processor for the tests beside this one).
  const answer = await until('words from the real model', async () => {
    const t = await transcript(frame);
    const last = t.filter((e) => e.label === 'pilotfish').pop();
    return last && last.text.replace(/^pilotfish/, '').trim() && last.text;
  }, 120);
  log(`the real model answered: ${JSON.stringify(answer.slice(0, 120))}`);
  const errors = await frame.evaluate(() => [...document.querySelectorAll('[role="alert"]')].map((e) => e.textContent));
  if (errors.length) throw new Error(`the view shows errors: ${errors.join(' | ')}`);
  const servers = serversOf(env('GGUF'));
  if (servers.length !== 1) throw new Error(`${servers.length} llama-servers for the model, not one:\n${servers.join('\n')}`);
  log(`one llama-server for the model: ${servers[0].trim().slice(0, 160)}`);
  await shot(page, 'chat-managed');
  await frame.evaluate(() => {
    const stop = document.querySelector('#stop');
    if (!stop.disabled) stop.click();
  });
  await turnEnded(frame);
}

async function main() {
  fs.mkdirSync(artifacts, { recursive: true });
  workspace();
  await inWorkbench({ work, ws, vsix: env('VSIX'), artifacts, failureShot: 'chat-failure' }, async (page) => {
    await until('the explorer to list calc.py', () => page.evaluate(() => document.body.textContent.includes('calc.py')));
    // The command palette lists an extension's commands once the extension is known; its
    // status bar item says it has started.
    await until('the extension to start', () =>
      page.evaluate(() => [...document.querySelectorAll('.statusbar-item')].some((e) => (e.textContent || '').includes('pilotfish'))),
    60);
    await runCommand(page, 'pilotfish: Open Chat');
    let frame = await chatFrame(page);
    await until('the session to start', () => frame.evaluate(() => document.body.textContent.includes('Ready.')), 60);
    const modes = await frame.evaluate(() => [...document.querySelectorAll('#mode option')].map((o) => o.textContent));
    if (!modes.includes('Agent') || !modes.includes('Chat')) throw new Error(`the modes are not offered: ${modes}`);
    await shot(page, 'chat-1-open');
    if (process.env.GGUF) {
      await sharesTheManagedServer(page, frame);
      console.log('PASS');
      return;
    }
    await streams(page, frame);
    await editsAndUndoes(page, frame);
    await asksAboutCommands(page, frame);
    await stops(page, frame);
    await runCommand(page, 'pilotfish: Restart the Language Server');
    frame = await chatFrame(page);
    await until('a new session after the restart', () =>
      frame.evaluate(() => document.body.textContent.includes('Ready.') && !document.body.textContent.includes('Stopped.')),
    60);
    fs.rmSync(mcpStarted, { force: true });
    await customAgentAndPromptFile(frame);
    await mcpQuestion(page, frame, 'Do not start it');
    await answerHolds(frame, 'after the restart');
    if (fs.existsSync(mcpStarted)) throw new Error('the rejected MCP server started');
    log('rejected: the MCP server did not start');
    await shot(page, 'chat-8-restarted');
    await inspects(page);
    const t = await transcript(frame);
    if (!t.some((e) => e.role === 'article' && e.label === 'You')) throw new Error('no message labelled for screen readers');
    console.log('PASS');
  });
}

runScript(main);
