// The inspector's page as `pilotfish prompt --html` writes it, opened in headless Chromium
// from the file alone: every part of the prompt shown with its token count, the budget, and
// not one request beyond the file itself (its content security policy forbids them all).
//
// Run by `crates/cli/tests/it/vscode.rs` under node 24, with these in the environment:
//   CODE_SERVER_DIR  tools/code-server.sh's folder (for puppeteer-core)
//   PAGE             the HTML file
//   EXPECT           text the prefix must hold
//   ARTIFACTS        where the screenshot goes
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const puppeteer = require(path.join(env('CODE_SERVER_DIR'), 'node_modules', 'puppeteer-core'));

async function main() {
  const artifacts = env('ARTIFACTS');
  fs.mkdirSync(artifacts, { recursive: true });
  const url = pathToFileURL(env('PAGE')).href;
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    // Chromium may take long to say where it listens on a busy machine (default 30 s).
    timeout: 120000,
    userDataDir: fs.mkdtempSync(path.join(artifacts, 'chromium-')),
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
    defaultViewport: { width: 1100, height: 1400 },
  });
  try {
    const page = await browser.newPage();
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    const blocked = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/.test(m.text())) blocked.push(m.text());
    });
    await page.goto(url, { waitUntil: 'networkidle0' });
    const shown = await page.evaluate(() => ({
      parts: [...document.querySelectorAll('[data-part]')].map((e) => ({
        part: e.getAttribute('data-part'),
        heading: e.querySelector('h2') ? e.querySelector('h2').textContent : '',
        text: e.querySelector('pre') ? e.querySelector('pre').textContent : '',
        visible: e.getBoundingClientRect().height > 0,
      })),
      budget: (document.querySelector('[data-budget]') || {}).textContent || '',
      rows: document.querySelectorAll('table tr').length,
      styled: getComputedStyle(document.querySelector('pre')).borderTopStyle,
    }));
    await page.screenshot({ path: path.join(artifacts, 'html-page.png'), fullPage: true });
    const fail = (why) => {
      throw new Error(`${why}\n${JSON.stringify(shown, null, 1)}`);
    };
    const prefix = shown.parts.find((p) => p.part === 'prefix');
    if (!prefix || !prefix.visible) fail('no visible prefix part');
    if (!prefix.text.includes(env('EXPECT'))) fail(`the prefix does not hold ${env('EXPECT')}`);
    if (!shown.parts.some((p) => p.part === 'suffix')) fail('no suffix part');
    for (const p of shown.parts.filter((p) => p.part === 'prefix' || p.part === 'suffix')) {
      if (!/\d+ tokens/.test(p.heading)) fail(`part ${p.part} shows no token count`);
    }
    if (!/\d+ of \d+ tokens used/.test(shown.budget)) fail('no budget');
    if (shown.rows < 3) fail('no table of the elements considered');
    if (shown.styled !== 'solid') fail('the inline styles were not applied');
    const others = requests.filter((r) => r !== url);
    if (others.length) fail(`the page made requests: ${others.join(', ')}`);
    if (blocked.length) fail(`the page tried to load something: ${blocked.join('; ')}`);
    console.log(`parts: ${shown.parts.map((p) => p.part).join(', ')}; ${shown.budget}; requests: ${requests.length}`);
    console.log('PASS');
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
