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
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const dir = env('CODE_SERVER_DIR');
const puppeteer = require(path.join(dir, 'node_modules', 'puppeteer-core'));
const codeServer = path.join(dir, 'node_modules', '.bin', 'code-server');
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
const started = Date.now();
const log = (m) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${m}`);

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** Polls `check` until it returns something truthy, or fails saying what was awaited. */
async function until(what, check, seconds = 60) {
  const end = Date.now() + seconds * 1000;
  let last;
  while (Date.now() < end) {
    try {
      last = await check();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out after ${seconds} s waiting for ${what} (last: ${last})`);
}

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
  const machine = path.join(work, 'user-data', 'Machine');
  fs.mkdirSync(machine, { recursive: true });
  fs.writeFileSync(
    path.join(machine, 'settings.json'),
    JSON.stringify({ 'pilotfish.path': env('PILOTFISH') }, null, 2),
  );
  const user = path.join(work, 'user-data', 'User');
  fs.mkdirSync(user, { recursive: true });
  fs.writeFileSync(
    path.join(user, 'settings.json'),
    JSON.stringify(
      {
        'pilotfish.endpoint': env('ENDPOINT'),
        'editor.inlineSuggest.enabled': true,
        'editor.quickSuggestions': { other: false, comments: false, strings: false },
        'editor.suggestOnTriggerCharacters': false,
        'editor.acceptSuggestionOnEnter': 'off',
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'security.workspace.trust.enabled': false,
        'telemetry.telemetryLevel': 'off',
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'update.mode': 'none',
        'files.autoSave': 'off',
        'python.languageServer': 'None',
        'chat.disableAIFeatures': true,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
      },
      null,
      2,
    ),
  );
  return ws;
}

async function shot(page, name) {
  const file = path.join(artifacts, `${name}.png`);
  await page.screenshot({ path: file });
  log(`screenshot ${file}`);
}

/** The text of pilotfish's status bar item. */
function statusText(page) {
  return page.evaluate(() => {
    const items = [...document.querySelectorAll('.statusbar-item')];
    const ours = items.find((e) => (e.textContent || '').includes('pilotfish'));
    return ours ? ours.textContent.trim() : '';
  });
}

/** The editor's lines as rendered, without ghost text (Monaco draws it inside the lines and
 * writes non-breaking spaces). */
function editorText(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('.editor-instance .view-lines .view-line')]
      .map((l) => {
        const copy = l.cloneNode(true);
        copy.querySelectorAll('[class*="ghost-text"]').forEach((g) => g.remove());
        return { top: parseFloat(l.style.top) || 0, text: copy.textContent.replace(/\u00a0/g, ' ') };
      })
      .sort((a, b) => a.top - b.top)
      .map((l) => l.text)
      .join('\n'),
  );
}

/** Waits for pilotfish's status bar item to hold `needle`; returns its text. */
function statusSays(page, needle, seconds = 30) {
  return until(`the status bar to say "${needle}"`, async () => {
    const t = await statusText(page);
    return t.includes(needle) && t;
  }, seconds);
}

/** Types `text` into the open quick input (Quick Open, the command palette) and picks the
 * row that shows it. */
async function pick(page, text) {
  const input = await page.waitForSelector('.quick-input-widget input', { visible: true });
  await input.type(text);
  await until(`"${text}" in the quick input`, () =>
    page.evaluate(
      (t) =>
        [...document.querySelectorAll('.quick-input-list .monaco-list-row')].some((r) =>
          (r.textContent || '').includes(t),
        ),
      text,
    ),
  );
  await page.keyboard.press('Enter');
}

async function runCommand(page, title) {
  await page.keyboard.press('F1');
  await pick(page, title);
}

async function main() {
  fs.mkdirSync(artifacts, { recursive: true });
  const ws = workspace();
  const userData = path.join(work, 'user-data');
  const extensions = path.join(work, 'extensions');
  log('installing the .vsix');
  execFileSync(
    codeServer,
    ['--user-data-dir', userData, '--extensions-dir', extensions, '--install-extension', env('VSIX')],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const port = await freePort();
  const server = spawn(
    codeServer,
    [
      '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--user-data-dir', userData,
      '--extensions-dir', extensions, '--reconnection-grace-time', '5', '--disable-telemetry',
      '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override',
      '--disable-proxy', ws,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let serverLog = '';
  server.stdout.on('data', (d) => (serverLog += d));
  server.stderr.on('data', (d) => (serverLog += d));
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    userDataDir: path.join(work, 'chromium'),
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--window-size=1400,900',
    ],
    defaultViewport: { width: 1400, height: 900 },
  });
  let page;
  try {
    page = await browser.newPage();
    await until('code-server to listen', async () => {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null);
      return r && r.ok;
    });
    log(`code-server is up on port ${port}`);
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
    log('the workbench is shown');

    // Open the file through Quick Open, as a user would.
    await until('the explorer to list shapes.py', () =>
      page.evaluate(() => document.body.textContent.includes('shapes.py')),
    );
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyP');
    await page.keyboard.up('Control');
    await pick(page, 'shapes.py');
    await page.waitForSelector('.editor-instance .view-lines', { visible: true });
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
    await page.keyboard.down('Control');
    await page.keyboard.press('End');
    await page.keyboard.up('Control');
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

    // The inspector: the last completion's prompt, part by part.
    await runCommand(page, 'pilotfish: Inspect the Prompt of the Last Completion');
    const inspected = await until('the prompt in the inspector', async () => {
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
    }, 30);
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
  } catch (e) {
    if (page) await shot(page, 'failure').catch(() => {});
    if (fs.existsSync(workspaceRan)) log(`the program the workspace's settings named (${workspaceProgram}) was run`);
    console.log(`code-server's log:\n${serverLog.slice(-4000)}`);
    throw e;
  } finally {
    await browser.close().catch(() => {});
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {}
  }
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
