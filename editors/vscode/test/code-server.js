// What the browser tests of the extension share: code-server started with the packaged .vsix
// in a folder of its own, Debian's Chromium driven by puppeteer-core on it, and the ways a test
// waits for, reads and drives the workbench as a user would (keys, Quick Open, the command
// palette). Used by browser.js and next-edit.js.
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
const started = Date.now();
const log = (m) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${m}`);

/** VS Code's settings that keep a test's workbench quiet: no tips, updates or telemetry, no
 * other suggestions than pilotfish's, no AI features of VS Code's own. */
const QUIET_SETTINGS = {
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
};

/** Writes the user's settings (`user`, over QUIET_SETTINGS) and the machine's settings, where
 * code-server (a remote window to VS Code) keeps `machine`-scope ones such as `pilotfish.path`. */
function writeSettings(work, user, machine) {
  const machineDir = path.join(work, 'user-data', 'Machine');
  fs.mkdirSync(machineDir, { recursive: true });
  fs.writeFileSync(path.join(machineDir, 'settings.json'), JSON.stringify(machine, null, 2));
  const userDir = path.join(work, 'user-data', 'User');
  fs.mkdirSync(userDir, { recursive: true });
  fs.writeFileSync(path.join(userDir, 'settings.json'), JSON.stringify({ ...QUIET_SETTINGS, ...user }, null, 2));
}

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

async function shot(page, artifacts, name) {
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

/** Waits for pilotfish's status bar item to hold `needle`; returns its text. */
function statusSays(page, needle, seconds = 30) {
  return until(`the status bar to say "${needle}"`, async () => {
    const t = await statusText(page);
    return t.includes(needle) && t;
  }, seconds);
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

/** Types `text` into the open quick input (Quick Open, the command palette) and picks the
 * row that shows it. */
async function pick(page, text) {
  const input = await page.waitForSelector('.quick-input-widget input', { visible: true });
  await input.type(text);
  // Enter takes the focused row, so wait until that row is the one asked for: while the list
  // still filters (slow on a busy machine), another row may hold the focus.
  await until(`"${text}" focused in the quick input`, () =>
    page.evaluate((t) => {
      const rows = [...document.querySelectorAll('.quick-input-list .monaco-list-row')];
      const focused = rows.find((r) => r.classList.contains('focused')) || rows[0];
      return Boolean(focused && (focused.textContent || '').includes(t));
    }, text),
  );
  await page.keyboard.press('Enter');
}

async function runCommand(page, title) {
  await page.keyboard.press('F1');
  await pick(page, title);
}

/** Presses `key` with Control held. */
async function control(page, key) {
  await page.keyboard.down('Control');
  await page.keyboard.press(key);
  await page.keyboard.up('Control');
}

/** Opens `name` through Quick Open, as a user would; first, unless another view holds the
 * side bar (`explorer: false`), once the explorer lists it (the folder has been read). */
async function openFile(page, name, { explorer = true } = {}) {
  if (explorer) {
    await until(`the explorer to list ${name}`, () =>
      page.evaluate((n) => document.body.textContent.includes(n), name),
    );
  }
  await control(page, 'KeyP');
  await pick(page, name);
  await page.waitForSelector('.editor-instance .view-lines', { visible: true });
}

/**
 * Installs `vsix` into a code-server of its own under `work`, starts it on folder `ws` and
 * opens the workbench in headless Chromium. Returns the page and `close()`, which stops both;
 * `serverLog()` is code-server's output so far.
 */
async function launch({ work, ws, vsix }) {
  const userData = path.join(work, 'user-data');
  const extensions = path.join(work, 'extensions');
  log('installing the .vsix');
  execFileSync(
    codeServer,
    ['--user-data-dir', userData, '--extensions-dir', extensions, '--install-extension', vsix],
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
  const close = async () => {
    await browser?.close().catch(() => {});
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {}
  };
  let browser;
  try {
    browser = await puppeteer.launch({
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
      headless: true,
      // Chromium may take long to say where it listens on a busy machine (default 30 s).
      timeout: 120000,
      userDataDir: path.join(work, 'chromium'),
      args: [
        '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync',
        '--window-size=1400,900',
      ],
      defaultViewport: { width: 1400, height: 900 },
    });
    const page = await browser.newPage();
    // A busy machine may take longer than puppeteer's 30 s to show a selector or load a page.
    page.setDefaultTimeout(90000);
    await until('code-server to listen', async () => {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null);
      return r && r.ok;
    });
    log(`code-server is up on port ${port}`);
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
    log('the workbench is shown');
    return { page, close, serverLog: () => serverLog };
  } catch (e) {
    console.log(`code-server's log:\n${serverLog.slice(-4000)}`);
    await close();
    throw e;
  }
}

/**
 * Launches the workbench (see `launch`) and runs `steps(page)` in it. On a failure it saves a
 * screenshot `failureShot` in `artifacts`, calls `onFailure()` for the script's own clues,
 * prints code-server's log and fails with the error; code-server and Chromium stop either way.
 */
async function inWorkbench({ work, ws, vsix, artifacts, failureShot = 'failure', onFailure }, steps) {
  const { page, close, serverLog } = await launch({ work, ws, vsix });
  try {
    await steps(page);
  } catch (e) {
    await shot(page, artifacts, failureShot).catch(() => {});
    if (onFailure) onFailure();
    console.log(`code-server's log:\n${serverLog().slice(-4000)}`);
    throw e;
  } finally {
    await close();
  }
}

/** Runs a browser script's `main`, printing the error's stack and exiting 1 when it fails. */
function runScript(main) {
  main().catch((e) => {
    console.error(e && e.stack ? e.stack : e);
    process.exit(1);
  });
}

module.exports = {
  control,
  editorText,
  env,
  inWorkbench,
  launch,
  log,
  openFile,
  pick,
  runCommand,
  runScript,
  shot,
  statusSays,
  statusText,
  until,
  writeSettings,
};
