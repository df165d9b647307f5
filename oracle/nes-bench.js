// Times chat-lib's next edit request building on the cases that
// crates/differential/benches/nes_vs_chatlib.rs times in pilotfish, in the same run: reads a
// JSON list of requests on standard input and prints one JSON line of median timings
// (nanoseconds per request). chat-lib's time is the whole path from an editor's events (the
// documents, the edits, the cursor) to the chat request it would send, as in the differential
// tests; pilotfish's is the same path (the request replayed, the prompt built).
'use strict';
const { ops } = require('./oracle.js');

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function main() {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const w = JSON.parse(input);
  // Warm up: the first provider loads all of chat-lib.
  for (const req of w.requests.slice(0, 5)) await ops.nes_request(req);
  const perRun = [];
  for (let r = 0; r < w.runs; r++) {
    const t0 = process.hrtime.bigint();
    for (const req of w.requests) await ops.nes_request(req);
    perRun.push(Number(process.hrtime.bigint() - t0) / w.requests.length);
  }
  process.stdout.write(JSON.stringify({ nes_request: median(perRun) }) + '\n');
}

main().catch(e => {
  console.error(e);
  process.exit(1);
});
