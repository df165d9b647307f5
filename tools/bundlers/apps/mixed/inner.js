// A package built by esbuild (as an ES module, its CommonJS dependencies in esbuild's
// `__commonJS` wrappers) that the rollup-built app below imports: rollup hoists its
// helpers into the app's top level, beside rollup's own lazy wrappers.
import ms from "ms";
import semver from "semver";
export const describe = (n) => `${ms(n)} ${semver.valid("1.2.3")}`;
