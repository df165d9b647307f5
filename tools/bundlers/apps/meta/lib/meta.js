// Required rather than imported, so the bundlers wrap it; it reads its own URL and imports
// modules later (one by a name the bundler cannot see), which a module file must still do.
export const url = import.meta.url;
export function load() {
  const os = ["node", "os"].join(":");
  return Promise.all([import("./greet.js"), import(os)]).then(
    ([g, system]) => `${g.greet(typeof url)} ${typeof system.EOL}`,
  );
}
