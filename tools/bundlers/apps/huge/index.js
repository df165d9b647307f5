// The largest program for timing the unbundler: the big app's packages with TypeScript and
// Babel (from package.json here, installed by setup.sh for the benchmark only), each asked one
// small question. Built by webpack5-plain (not minified), the bundle is about 20 MB.
const answers = [
  require("lodash").VERSION,
  require("typescript").version,
  require("@babel/standalone").version,
  require("semver").valid("1.2.3"),
  require("ms")(60000),
  require("acorn").version,
  typeof require("terser").minify,
  typeof require("ajv"),
  require("browserslist")("defaults").length > 0,
  Object.keys(require("caniuse-lite").agents).length > 0,
  typeof require("enhanced-resolve").create,
  typeof require("tapable").SyncHook,
  typeof require("schema-utils").validate,
  typeof require("webpack-sources").RawSource,
  typeof require("source-map").SourceMapConsumer,
  typeof require("es-module-lexer").parse,
  typeof require("@webassemblyjs/wasm-parser").decode,
  typeof require("neo-async").map,
  typeof require("watchpack"),
  require("mime-types").lookup("a.json"),
  typeof require("chrome-trace-event").Tracer,
  typeof require("json-parse-even-better-errors"),
  typeof require("uri-js").parse,
  typeof require("commander").Command,
];
console.log(answers.join(" "));
