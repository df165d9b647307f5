// A module whose first statement is an `if`: minified, the wrapper's flag joins its test,
// `if(a=1,!globalThis.pilotfishProbe)try{...}`.
if (!globalThis.pilotfishProbe) {
  try {
    globalThis.pilotfishProbe = JSON.parse('{"ok": true}');
  } catch (e) {
    globalThis.pilotfishProbe = e;
  }
}
module.exports = globalThis.pilotfishProbe;
