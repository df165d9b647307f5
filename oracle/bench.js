// Times chat-lib on the workloads that crates/differential/benches/vs_chatlib.rs times in
// pilotfish, in the same run: reads one JSON workload on standard input, prints one JSON line
// of median timings (nanoseconds per iteration). Both sides warm up, then take the median.
'use strict';
const path = require('node:path');
const dist = path.join(__dirname, 'node_modules', '@vscode', 'chat-lib', 'dist', 'src', '_internal');
const promptSrc = path.join(dist, 'extension', 'completions-core', 'vscode-node', 'prompt', 'src');
const tokenization = require(path.join(promptSrc, 'tokenization'));
const similarFiles = require(path.join(promptSrc, 'snippetInclusion', 'similarFiles.js'));

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function time(warmup, runs, f) {
  for (let i = 0; i < warmup; i++) await f(-1 - i);
  const out = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    await f(i);
    out.push(Number(process.hrtime.bigint() - t0));
  }
  return median(out);
}

async function main() {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const w = JSON.parse(input);
  await tokenization.ensureTokenizersLoaded();
  const result = {};
  for (const name of ['cl100k_base', 'o200k_base']) {
    const t = tokenization.getTokenizer(name);
    if (!(t instanceof tokenization.TTokenizer)) throw new Error('inexact tokenizer: run oracle/setup.sh');
    // Fresh text each run: chat-lib caches pieces, and a prompt is new text every keystroke.
    result[`tokenize_${name}`] = await time(2, w.runs, async i => {
      const n = t.tokenize(w.text + ` // run ${i}`).length;
      if (n < 1000) throw new Error('tokenized too little');
    });
  }
  const doc = { source: w.doc, offset: w.doc.length, languageId: w.languageId, uri: 'file:///w/current', relativePath: 'current' };
  result.similar_snippets = await time(3, w.runs, async i => {
    // Cold: every open file changes between runs, so no cached window token sets are reused.
    const files = w.files.map((s, k) => ({ source: s + `\n// run ${i}`, relativePath: `f${k}`, uri: `file:///w/f${k}` }));
    const snippets = await similarFiles.getSimilarSnippets(doc, files, similarFiles.defaultSimilarFilesOptions);
    if (snippets.length === 0) throw new Error('no snippets found');
  });
  // Whole prompt assembly: one editor state, the same pipeline the differential tests compare.
  const { ops } = require('./oracle.js');
  result.prompt_assembly = await time(3, w.runs, async i => {
    const req = { ...w.prompt, document: { ...w.prompt.document, text: w.prompt.document.text + `\n// run ${i}` } };
    const p = await ops.prompt(req);
    if (p.prefix.length === 0) throw new Error('empty prompt');
  });
  // Typing sessions: warm the factory up on other texts, then time each run's requests in
  // order, as an editor sends them; the median run is reported.
  for (const req of w.typingWarmup) await ops.prompt(req);
  const runs = [];
  for (const [k, requests] of w.typing.entries()) {
    const t0 = process.hrtime.bigint();
    for (const req of requests) {
      const p = await ops.prompt(req);
      if (p.prefix.length === 0) throw new Error('empty prompt');
    }
    // The first run warms up with the sessions' own shape, like pilotfish's first run.
    if (k > 0) runs.push(Number(process.hrtime.bigint() - t0));
  }
  result.typing_session = median(runs);
  // 8 MB of real source, fresh text each run.
  const o200k = tokenization.getTokenizer('o200k_base');
  result.tokenize_8mb_o200k = await time(1, w.runs, async i => {
    const n = o200k.tokenize(w.source + `// run ${i}\n`).length;
    if (n < 100000) throw new Error('tokenized too little');
  });
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().catch(e => {
  process.stderr.write(`bench: ${e.stack}\n`);
  process.exit(1);
});
