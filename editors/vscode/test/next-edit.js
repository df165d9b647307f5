// Next edit suggestions in a real VS Code in a real browser: code-server with the packaged
// .vsix, driven by Debian's Chromium through puppeteer-core, against `pilotfish lsp` whose next
// edits go (through `pilotfish.chat.endpoint`) to the fake next-edit model, which renames
// `return size` to `return length` in the lines it is asked to rewrite. A parameter is renamed
// by typing; the suggestion to rename its other use shows away from the cursor (gutter icon and
// label); Tab goes to it, Tab again applies it (one undoable edit); a second rename's
// suggestion is dismissed with Escape; then `pilotfish.chat.endpoint` names another model, whose
// suggestion over two lines is drawn below the line it replaces and applied. The language server's standard input is recorded (the
// configured program is a script that copies it), so the test sees the server receive shown,
// accepted and rejected. Screenshots of each step go to ARTIFACTS.
//
// Run by `crates/cli/tests/it/vscode_next_edit.rs` under node 24, with these in the environment:
//   CODE_SERVER_DIR  tools/code-server.sh's folder (code-server and puppeteer-core)
//   VSIX             tools/vscode-extension.sh's package
//   PILOTFISH        the pilotfish binary
//   NEXT_EDIT        the fake next-edit model's address
//   NEXT_EDIT_LINES  another, which rewrites `return value / 2` on two lines; the settings are
//                    changed to name it near the end, and its suggestion is drawn below
//   WORK             an empty folder for the workspace and code-server's state
//   ARTIFACTS        where screenshots go
//   DISABLED         when set, `pilotfish.nextEdit.enable` is false: no suggestion may show
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { control, editorText, env, inWorkbench, runScript, log, openFile, runCommand, shot: shotIn, statusSays, until, writeSettings } =
  require('./code-server');

const work = env('WORK');
const artifacts = env('ARTIFACTS');
const shot = (page, name) => shotIn(page, artifacts, name);
/** Everything the language server read on its standard input. */
const received = path.join(work, 'lsp-stdin.log');

const SOURCE = [
  '"""Scaling helpers."""',
  '',
  '',
  'def scale(size, factor):',
  '    return size * factor',
  '',
  '',
  'def halve(value):',
  '    return value / 2',
  '',
  '',
  'def grow(size, step):',
  '    return size + step',
  '',
].join('\n');

/** Sets a text setting in the Settings editor, as a user would (searched for, typed into its
 * field), and goes back to the file. `described` is text of the setting's description. */
async function setInSettingsEditor(page, key, described, value) {
  await runCommand(page, 'Preferences: Open User Settings');
  const search = await page.waitForSelector('.settings-editor .suggest-input-container', { visible: true });
  await search.click();
  await page.keyboard.type(key, { delay: 20 });
  const field = await until(`the setting ${key} in the Settings editor`, async () => {
    const handle = await page.evaluateHandle((d) => {
      const item = [...document.querySelectorAll('.settings-editor .setting-item-contents')].find((e) =>
        (e.textContent || '').includes(d),
      );
      return item ? item.querySelector('input') : null;
    }, described);
    return handle.asElement();
  }, 20);
  await field.click();
  await control(page, 'KeyA');
  await page.keyboard.type(value);
  await page.keyboard.press('Tab');
  const file = path.join(work, 'user-data', 'User', 'settings.json');
  await until(`${key} saved in the user's settings`, () => fs.readFileSync(file, 'utf8').includes(value), 20);
  await page.keyboard.press('Escape');
  await control(page, 'KeyW');
  await page.waitForSelector('.editor-instance .view-lines', { visible: true });
  await page.click('.editor-instance .view-lines');
}

/** Writes the user's settings file. */
function userSettings(chatEndpoint) {
  writeSettings(
    work,
    {
      // No ghost text here (nothing serves completions): next edits alone.
      'pilotfish.enable': false,
      'pilotfish.endpoint': 'http://127.0.0.1:9',
      'pilotfish.chat.endpoint': chatEndpoint,
      'pilotfish.nextEdit.enable': !process.env.DISABLED,
    },
    { 'pilotfish.path': path.join(work, 'pilotfish-recorded.sh') },
  );
}

function workspace() {
  const ws = path.join(work, 'workspace');
  fs.mkdirSync(ws, { recursive: true });
  fs.writeFileSync(path.join(ws, 'scale.py'), SOURCE);
  // The server as configured, its input copied on the way in.
  const program = path.join(work, 'pilotfish-recorded.sh');
  fs.writeFileSync(program, `#!/bin/sh\ntee -a '${received}' | '${env('PILOTFISH')}' "$@"\n`);
  fs.chmodSync(program, 0o755);
  userSettings(env('NEXT_EDIT'));
  return ws;
}

/** The texts VS Code draws from decorations in the editor's lines (`after`/`before` text, in
 * CSS pseudo-elements, so not in the lines' own text), and whether pilotfish's gutter icon is
 * shown. */
function drawn(page) {
  return page.evaluate(() => {
    const texts = [];
    for (const el of document.querySelectorAll('.editor-instance .view-lines span')) {
      for (const pseudo of ['::before', '::after']) {
        const c = getComputedStyle(el, pseudo).content;
        // A string's serialization: in double quotes, with `\` before `"` and `\`.
        if (c && c.startsWith('"')) texts.push(c.slice(1, -1).replace(/\\(.)/g, '$1'));
      }
    }
    // The glyph margin's decorations (`.glyph-margin-widgets` in recent VS Code).
    const gutter = [...document.querySelectorAll('.editor-instance .margin div')].some((d) =>
      getComputedStyle(d).backgroundImage.includes('next-edit.svg'),
    );
    return { texts, gutter };
  });
}

/** Waits until the decorations hold `text` (and the gutter icon is `gutter`). */
async function shows(page, what, text, gutter) {
  let seen;
  return until(what, async () => {
    seen = await drawn(page);
    return seen.texts.includes(text) && seen.gutter === gutter && seen;
  }, 30).catch((e) => {
    throw new Error(`${e.message}; drawn: ${JSON.stringify(seen)}`);
  });
}

/** Moves to 0-based `line`, `column` from the top of the file, by keys. */
async function goTo(page, line, column) {
  await control(page, 'Home');
  for (let i = 0; i < line; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Home');
  // Home goes to the first non-blank character; these lines start with one.
  for (let i = 0; i < column; i++) await page.keyboard.press('ArrowRight');
}

/** Renames the 4-letter word before the cursor to `name`, one key at a time. */
async function retype(page, name) {
  for (let i = 0; i < 4; i++) await page.keyboard.press('Backspace', { delay: 30 });
  await page.keyboard.type(name, { delay: 40 });
}

/** The JSON-RPC messages the language server received, in order. */
function messages() {
  const raw = fs.readFileSync(received);
  const out = [];
  let at = 0;
  while (at < raw.length) {
    const end = raw.indexOf('\r\n\r\n', at);
    if (end < 0) break;
    const length = Number(/Content-Length: (\d+)/i.exec(raw.subarray(at, end).toString())[1]);
    out.push(JSON.parse(raw.subarray(end + 4, end + 4 + length).toString()));
    at = end + 4 + length;
  }
  return out;
}

const uuidOf = (item) => item && item.command && item.command.arguments && item.command.arguments[0];

/** The server heard of each suggestion as Copilot's clients tell it. */
function checkReported(acceptedText) {
  const all = messages();
  const shown = all.filter((m) => m.method === 'textDocument/didShowInlineEdit').map((m) => m.params.item);
  const accepted = all
    .filter((m) => m.method === 'workspace/executeCommand' && m.params.command === 'github.copilot.didAcceptCompletionItem')
    .map((m) => m.params.arguments[0]);
  const rejected = all.filter((m) => m.method === 'textDocument/didRejectInlineEdit').map((m) => uuidOf(m.params.item));
  const asked = all.filter((m) => m.method === 'textDocument/copilotInlineEdit').length;
  const cancelled = all.filter((m) => m.method === '$/cancelRequest').length;
  log(`the server received ${asked} next-edit requests (${cancelled} cancelled), ${shown.length} shown, ` +
    `accepted ${JSON.stringify(accepted)}, rejected ${JSON.stringify(rejected)}`);
  // Suggestions shown while the user still typed were dismissed by the next key; the one
  // accepted is the rename of scale's use (line 4), the last shown grow's (line 12), dismissed.
  const ofAccepted = shown.filter((i) => uuidOf(i) === accepted[0]);
  if (accepted.length !== 1 || ofAccepted.length === 0 || ofAccepted[0].text !== acceptedText ||
    ofAccepted[0].range.start.line !== 4) {
    throw new Error(`the accepted suggestion was not reported: shown ${JSON.stringify(shown)}, accepted ${accepted}`);
  }
  const last = shown[shown.length - 1];
  if (!last || last.range.start.line !== 12 || !rejected.includes(uuidOf(last)) || accepted.includes(uuidOf(last))) {
    throw new Error(`the dismissed suggestion was not reported rejected: ${JSON.stringify(last)}, ${rejected}`);
  }
}

async function main() {
  fs.mkdirSync(artifacts, { recursive: true });
  const ws = workspace();
  await inWorkbench({ work, ws, vsix: env('VSIX'), artifacts, failureShot: 'failure' }, async (page) => {
    await openFile(page, 'scale.py');
    await statusSays(page, 'pilotfish: off', 90);
    await until('the language server to start', () => fs.existsSync(received) && messages().some((m) => m.method === 'initialized'), 30);
    await page.click('.editor-instance .view-lines');

    // Rename scale's parameter `size` to `length`, by typing.
    await goTo(page, 3, 'def scale(size'.length);
    await retype(page, 'length');
    if (process.env.DISABLED) {
      // Turned off: nothing is asked or shown, and Tab is Tab.
      await new Promise((r) => setTimeout(r, 3000));
      const d = await drawn(page);
      if (d.texts.includes('length') || d.gutter || messages().some((m) => m.method === 'textDocument/copilotInlineEdit')) {
        throw new Error(`a next edit was asked or shown with pilotfish.nextEdit.enable off: ${JSON.stringify(d)}`);
      }
      console.log('PASS');
      return;
    }
    // The suggestion, away from the cursor: `size` on the next line marked, `length` beside it,
    // the gutter icon and the label saying what Tab does.
    await shows(page, 'the suggestion to rename the other use', 'length', true);
    await shows(page, 'the label of a suggestion away from the cursor', 'Tab: go to the suggested edit', true);
    await shot(page, '1-suggested');
    // A user's glance: Tab follows the suggestion being seen, not the same instant.
    await new Promise((r) => setTimeout(r, 300));
    const before = await editorText(page);

    // Tab: the cursor goes to the suggestion; the label now says Tab accepts.
    await page.keyboard.press('Tab');
    await shows(page, 'the label of a suggestion at the cursor', 'Tab: accept · Esc: dismiss', false);
    if ((await editorText(page)) !== before) throw new Error('the first Tab changed the text');
    await shot(page, '2-at-the-suggestion');

    // Tab again: applied (once VS Code has the context key that says the suggestion is here).
    await new Promise((r) => setTimeout(r, 300));
    await page.keyboard.press('Tab');
    const accepted = await until('both uses renamed', async () => {
      const t = await editorText(page);
      return t.includes('def scale(length, factor):') && t.includes('    return length * factor') && t;
    }, 15);
    log(`after Tab, Tab:\n${accepted}`);
    await shot(page, '3-accepted');

    // One undoable step: undo brings back the use alone, redo applies it again.
    await control(page, 'KeyZ');
    await until('undo to take back the suggestion alone', async () => {
      const t = await editorText(page);
      return t.includes('def scale(length, factor):') && t.includes('    return size * factor');
    }, 10);
    await page.keyboard.down('Control');
    await page.keyboard.down('Shift');
    await page.keyboard.press('KeyZ');
    await page.keyboard.up('Shift');
    await page.keyboard.up('Control');
    await until('redo', async () => (await editorText(page)).includes('    return length * factor'), 10);

    // Another rename, in grow: its suggestion is dismissed with Escape.
    await goTo(page, 11, 'def grow(size'.length);
    await retype(page, 'length');
    await shows(page, 'the suggestion to rename grow\'s other use', 'length', true);
    await shot(page, '4-second-suggestion');
    await page.keyboard.press('Escape');
    await until('the suggestion to be dismissed', async () => {
      const d = await drawn(page);
      return !d.texts.includes('length') && !d.gutter;
    }, 10);
    const after = await editorText(page);
    if (!after.includes('def grow(length, step):') || !after.includes('    return size + step')) {
      throw new Error(`Escape changed the text:\n${after}`);
    }
    await shot(page, '5-dismissed');

    await until('the rejection to reach the server', () => {
      try {
        checkReported('length');
        return true;
      } catch (e) {
        return false;
      }
    }, 10).catch(() => checkReported('length'));

    // Another model, named in the settings while VS Code runs: its suggestion spans two lines
    // and is drawn below the line it replaces.
    await setInSettingsEditor(page, 'pilotfish.chat.endpoint', "The chat model server's address", env('NEXT_EDIT_LINES'));
    await until('the new settings to reach the server', () =>
      messages().some((m) => m.method === 'workspace/didChangeConfiguration' &&
        JSON.stringify(m.params).includes(env('NEXT_EDIT_LINES'))), 30);
    await goTo(page, 7, 'def halve(value):'.length);
    await page.keyboard.type('  # by two', { delay: 40 });
    await shows(page, 'the two-line suggestion below its line', '    return half', true);
    await shot(page, '6-below');
    await new Promise((r) => setTimeout(r, 300));
    await page.keyboard.press('Tab');
    await shows(page, 'the two-line suggestion at the cursor', 'Tab: accept · Esc: dismiss', false);
    await new Promise((r) => setTimeout(r, 300));
    await page.keyboard.press('Tab');
    await until('the two lines applied', async () => {
      const t = await editorText(page);
      return t.includes('    half = value / 2\n    return half\n') && t;
    }, 15);

    console.log('PASS');
  });
}

runScript(main);
