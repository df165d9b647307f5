// The extension in a real VS Code in a real browser: code-server with the packaged .vsix,
// driven by Debian's Chromium through puppeteer-core. It types in a Python file, waits for
// pilotfish's ghost text, accepts it with Tab, opens the inspector and finds the prompt's parts
// in it, then stops the model server and waits for the status bar to say so. Screenshots of
// each step go to ARTIFACTS. The workspace's own .vscode/settings.json names another program as
// `pilotfish.path` (a script that leaves a marker file); it must never run, since only the user's
// settings may choose the program.
//
// Run by `crates/cli/tests/it/vscode.rs` under node 24, with these in the environment:
//   CODE_SERVER_DIR  tools/code-server.sh's folder (code-server and puppeteer-core)
//   VSIX             tools/vscode-extension.sh's package
//   PILOTFISH        the pilotfish binary
//   ENDPOINT         a running llama-server (the real model)
//   MODEL_PID        its process id, stopped near the end
//   WORK             an empty folder for the workspace and code-server's state
//   NO_BINARY        when set, PILOTFISH is missing: only the status bar's report is checked
//   ARTIFACTS        where screenshots go
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const {
  control, editorText, env, inWorkbench, runScript, log, openFile, runCommand, shot: shotIn, statusSays, until, writeSettings,
} = require('./code-server');

const work = env('WORK');
// The program a workspace's settings name, and the marker it leaves if it ever runs.
const workspaceProgram = path.join(work, 'workspace-program.sh');
const workspaceRan = path.join(work, 'workspace-program-ran');

/** Fails when the program the workspace's settings named has run. */
function checkWorkspaceProgramNeverRan() {
  if (fs.existsSync(workspaceRan)) {
    throw new Error(`the program the workspace's settings named (${workspaceProgram}) was run`);
  }
  log('the program the workspace\'s settings named never ran');
}
const artifacts = env('ARTIFACTS');
const shot = (page, name) => shotIn(page, artifacts, name);

function workspace() {
  const ws = path.join(work, 'workspace');
  fs.mkdirSync(ws, { recursive: true });
  fs.writeFileSync(
    path.join(ws, 'shapes.py'),
    '"""Areas of simple shapes."""\n\n\ndef square_area(side):\n    return side * side\n\n\n' +
      'def rectangle_area(width, height):\n',
  );
  // What a cloned repository could carry: its own choice of the program the extension runs.
  fs.mkdirSync(path.join(ws, '.vscode'), { recursive: true });
  fs.writeFileSync(workspaceProgram, `#!/bin/sh\ntouch '${workspaceRan}'\nexec '${process.env.PILOTFISH}' "$@"\n`);
  fs.chmodSync(workspaceProgram, 0o755);
  fs.writeFileSync(
    path.join(ws, '.vscode', 'settings.json'),
    JSON.stringify({ 'pilotfish.path': workspaceProgram, 'pilotfish.args': ['--verbose'] }),
  );
  // `pilotfish.path` is a machine setting: in code-server (a remote window to VS Code) the user
  // sets it in the machine's settings, beside the user's own.
  // Next edits are tested in next-edit.js. Here they would ask SmolLM2, a completion model,
  // for chat answers that hold its single slot while the ghost text waits.
  writeSettings(
    work,
    { 'pilotfish.endpoint': env('ENDPOINT'), 'pilotfish.nextEdit.enable': false },
    { 'pilotfish.path': env('PILOTFISH') },
  );
  return ws;
}

/** Runs the inspector's command and returns its parts, budget and text, trying the command up
 * to three times; the error names the frames that were there. */
async function inspect(page) {
  const read = async () => {
    for (const frame of page.frames()) {
      const found = await frame
        .evaluate(() => {
          const parts = [...document.querySelectorAll('[data-part]')].map((e) => ({
            part: e.getAttribute('data-part'),
            text: e.textContent,
          }));
          const budget = document.querySelector('[data-budget]');
          return parts.length
            ? { parts, budget: budget && budget.textContent, body: document.body.innerText }
            : null;
        })
        .catch(() => null);
      if (found) return found;
    }
    return null;
  };
  let last;
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    await page.keyboard.press('Escape');
    await runCommand(page, 'pilotfish: Inspect the Prompt of the Last Completion');
    try {
      return await until('the prompt in the inspector', read, 40);
    } catch (e) {
      last = e;
      log(`attempt ${attempt}: ${e.message}; frames: ${page.frames().map((f) => f.url().slice(0, 80)).join(' | ')}`);
    }
  }
  throw last;
}

async function main() {
  fs.mkdirSync(artifacts, { recursive: true });
  const ws = workspace();
  await inWorkbench({ work, ws, vsix: env('VSIX'), artifacts, failureShot: 'failure', onFailure: () => {
    if (fs.existsSync(workspaceRan)) log(`the program the workspace's settings named (${workspaceProgram}) was run`);
  } }, async (page) => {
    // Open the file through Quick Open, as a user would.
    await openFile(page, 'shapes.py');
    if (process.env.NO_BINARY) {
      // PILOTFISH names no binary: the server cannot start, and the status bar says so.
      log(`status bar: ${await statusSays(page, 'pilotfish: server stopped', 60)}`);
      await shot(page, 'no-binary');
      checkWorkspaceProgramNeverRan();
      console.log('PASS');
      return;
    }
    log(`status bar: ${await statusSays(page, 'pilotfish: ready', 90)}`);
    await shot(page, '1-ready');

    // Type at the end of the file: the body of rectangle_area.
    await page.click('.editor-instance .view-lines');
    await control(page, 'End');
    await page.keyboard.type('    return width', { delay: 40 });
    const ghost = await until('ghost text', () =>
      page.evaluate(() => {
        const parts = [...document.querySelectorAll('[class*="ghost-text"]')]
          .map((e) => e.textContent || '')
          .filter((t) => t.trim() !== '');
        return parts.length ? parts.join('') : '';
      }),
    60);
    log(`ghost text: ${JSON.stringify(ghost)}`);
    await shot(page, '2-ghost-text');
    const before = await editorText(page);
    await page.keyboard.press('Tab');
    // Accepted: the line now holds what was typed followed by the suggestion's first line.
    // Monaco may draw the suggestion's leading space apart from its ghost text, so spaces are
    // left out of the comparison.
    const line = `return width${ghost.split('\n')[0]}`;
    const squeeze = (t) => t.replace(/\s+/g, '');
    let seen = before;
    const accepted = await until(`the line "${line}" after Tab`, async () => {
      seen = await editorText(page);
      return seen !== before && squeeze(seen).includes(squeeze(line)) && seen;
    }, 20).catch((e) => {
      throw new Error(`${e.message}; the editor shows:\n${seen}`);
    });
    log(`after Tab:\n${accepted}`);
    await shot(page, '3-accepted');

    // The inspector: the last completion's prompt, part by part. On a busy machine the
    // command palette may drop the Enter, or the webview may load slowly: the command is run
    // again (it only reveals the one panel) if nothing shows within a while.
    const inspected = await inspect(page);
    const prefix = inspected.parts.find((p) => p.part === 'prefix');
    if (!prefix || !prefix.text.includes('def rectangle_area(width, height):')) {
      throw new Error(`the inspector's prefix is not the file's text: ${JSON.stringify(inspected.parts)}`);
    }
    if (!/\d+ tokens/.test(prefix.text) || !inspected.budget || !/of \d+ tokens used/.test(inspected.budget)) {
      throw new Error(`the inspector shows no token counts: ${inspected.budget}`);
    }
    if (!inspected.body.includes('The request') || !inspected.body.includes(env('ENDPOINT'))) {
      throw new Error('the inspector does not show the request');
    }
    log(`inspector: parts ${inspected.parts.map((p) => p.part).join(', ')}; ${inspected.budget}`);
    await shot(page, '4-inspector');

    // Stop the model server; the next completion fails and the status bar says why.
    process.kill(Number(env('MODEL_PID')), 'SIGKILL');
    log('stopped the model server');
    // Back to the editor (the inspector took the focus's side), then a keystroke.
    await page.click('.editor-instance .view-lines');
    await page.keyboard.press('End');
    await page.keyboard.type(' ', { delay: 40 });
    log(`status bar: ${await statusSays(page, 'no model server at')}`);
    await shot(page, '5-no-model-server');

    // The commands: completions off and on again, and a new server.
    await runCommand(page, 'pilotfish: Toggle Completions');
    log(`status bar: ${await statusSays(page, 'pilotfish: off')}`);
    await runCommand(page, 'pilotfish: Toggle Completions');
    log(`status bar: ${await statusSays(page, 'no model server at')}`);
    await runCommand(page, 'pilotfish: Restart the Language Server');
    log(`status bar: ${await statusSays(page, 'pilotfish: ready')}`);
    checkWorkspaceProgramNeverRan();
    console.log('PASS');
  });
}

runScript(main);
