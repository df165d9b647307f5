// The largest program for timing the unbundler: the big app's packages with TypeScript and
// Babel (from package.json here, installed by setup.sh for the benchmark only), each asked one
// small question. Built by webpack5-plain (not minified), the bundle is about 20 MB.
console.log(require("typescript").version, require("@babel/standalone").version);
require("../big/index.js");
