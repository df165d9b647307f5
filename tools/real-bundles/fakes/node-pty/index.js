// FAKE node-pty, a stand-in of pilotfish's corpus tests (tools/real-bundles/setup.sh installs it
// beside a package that imports node-pty as it starts, for the bundle and its unbundled output
// alike). It only lets the import succeed: the registry's node-pty holds no prebuilt Linux
// binary. Using it throws.
"use strict";
function unavailable(name) {
  return function () {
    throw new Error(`FAKE node-pty (pilotfish's corpus stand-in): ${name}() was called; the real node-pty is not installed here (its registry package holds no prebuilt Linux binary)`);
  };
}
exports.spawn = unavailable("spawn");
exports.fork = unavailable("fork");
exports.createTerminal = unavailable("createTerminal");
exports.open = unavailable("open");
exports.native = undefined;
