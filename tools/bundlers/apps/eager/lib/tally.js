// Adds to its exports; counts how often its code ran (once), on the global object.
globalThis.pilotfishTallyRuns = (globalThis.pilotfishTallyRuns || 0) + 1;
let n = 0;
exports.count = function () {
  n += 1;
  return n;
};
exports.runs = globalThis.pilotfishTallyRuns;
