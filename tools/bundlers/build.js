// Builds a test app with a pinned bundler: `node build.js BUNDLER APP OUT`, BUNDLER one of
// webpack5, webpack4, esbuild (minified) or esbuild-plain for node, or webpack5-web and
// webpack4-web for browsers (JSONP chunks: the runtime, the packages and the app each in a
// file of their own, and an async chunk loaded by a script tag; run them with browser.js), or
// webpack4-web-hashed (webpack4-web with HashedModuleIdsPlugin's ids, `mBYv` and `"+2uE"`,
// as many webpack 4 apps were built), webpack5-web-inline-runtime and
// webpack4-web-inline-runtime (the runtime inside the app's file, not a file of its own),
// webpack5-plain (not minified), webpack5-dev (development mode: modules keyed by their
// paths), webpack5-licenses (minified, packages' license comments kept where they are rather
// than moved to a separate file), webpack5-methods (the newer webpack 5 pinned as
// webpack-latest, writing its tables' modules as methods), esbuild-map (minified, with its source map),
// esbuild-esm (minified, an ES module: main.mjs), esbuild-esm-map (with its source map) and
// esbuild-esm-split (code-split into main.mjs and chunk-*.mjs files), esbuild-comments
// (names and syntax minified but not whitespace: its wrappers lose their path keys, and the
// `// src/a.js` comment before each module's code stays), esbuild-plain-two (two programs
// built apart, each with its own copy of the same packages: main.js and other.js),
// rolldown and rolldown-minify (ES modules: main.mjs and a chunk that imports rolldown's
// helpers from it; rolldown-js the same named `.js`; rolldown-cjs minified CommonJS,
// main.cjs and a chunk that calls the helpers on main.cjs's exports), esbuild-esm-meta (a minified ES
// module with a `createRequire(import.meta.url)` banner: main.mjs), bun and bun-minify (Bun's
// bundler for node: main.mjs) and rollup-commonjs (rollup with @rollup/plugin-commonjs's lazy
// `requireX()` wrappers: main.js; rollup-commonjs-minify the same minified by esbuild's
// transform, as Vite's library mode does) and rollup-esbuild-inside (the same, importing a package
// esbuild built first) and rollup-commonjs-chunks (main.js and the `chunk-*.js` files its
// dynamic imports load, some holding wrappers and some not), and rslib-esm (rslib on rspack,
// an ES module library: main.js, the runtime's chunk with its modules handed to
// `__webpack_require__.add({...})`, and a chunk loaded by a dynamic import).
// Writes the bundle's files into OUT and OUT/stats.json: {"files": [...load order...],
// "initial": [...the files to load...], "modules": [{"id": "...", "name": "..."}]} from the
// bundler's own account of what it emitted; the files a page would load come first, in
// order, and the async chunks after them. Deterministic: the same inputs
// give the same bytes.
'use strict';
const path = require('node:path');
const fs = require('node:fs');

const [bundler, app, out] = process.argv.slice(2);
if (!bundler || !app || !out) {
  console.error('usage: node build.js webpack5|webpack4|webpack5-web|webpack4-web|webpack4-web-hashed|webpack5-web-inline-runtime|webpack4-web-inline-runtime|webpack5-plain|webpack5-dev|webpack5-licenses|esbuild|esbuild-plain|esbuild-map|esbuild-esm|esbuild-esm-map|esbuild-esm-split|esbuild-comments|esbuild-plain-two|webpack5-methods|esbuild-esm-meta|rolldown|rolldown-minify|rolldown-js|rolldown-cjs|bun|bun-minify|rollup-commonjs|rollup-commonjs-minify|rollup-esbuild-inside|rollup-commonjs-chunks|rollup2-commonjs|tsup-cjs-split|rslib-esm APP OUT');
  process.exit(2);
}
const appDir = path.resolve(__dirname, 'apps', app);
const entry = path.join(appDir, 'index.js');
// An app may ask for packages' ES module builds first: {"mainFields": ["module", "main"]}.
const appOptions = fs.existsSync(path.join(appDir, 'build.json'))
  ? JSON.parse(fs.readFileSync(path.join(appDir, 'build.json'), 'utf8'))
  : {};
const outDir = path.resolve(out);
fs.mkdirSync(outDir, { recursive: true });

function webpackBuild(webpack, web, plain, dev, licenses, hashed, inlineRuntime, methods) {
  const config = {
    mode: dev ? 'development' : 'production',
    target: web ? 'web' : 'node',
    context: appDir,
    entry,
    devtool: false,
    output: { path: outDir, filename: web ? '[name].js' : 'main.js', chunkFilename: '[id].js' },
    // An app may have packages of its own (installed by its setup.sh).
    resolve: {
      modules: [path.join(appDir, 'node_modules'), path.join(__dirname, 'node_modules')],
      ...(appOptions.mainFields ? { mainFields: appOptions.mainFields } : {}),
    },
    // Webpack 5's production defaults, and webpack 4's: terser minifies, ids are numbers.
    optimization: { minimize: !plain && !dev },
  };
  if (hashed) config.plugins = [new webpack.HashedModuleIdsPlugin()];
  // Newer webpack 5 writes its tables with methods (`{7214(e, r, t) {...}}`) for targets
  // that have them.
  if (methods) {
    config.output.environment = { methodShorthand: true, arrowFunction: true, const: true };
    // terser, as the older webpack 5 minifies (the newer one's own minimizer wants other
    // packages' versions).
    const Terser = require('terser-webpack-plugin');
    config.optimization.minimizer = [new Terser({ extractComments: false })];
  }
  if (licenses) {
    // terser-webpack-plugin: webpack 5's own minimizer, pinned in package.json.
    const Terser = require('terser-webpack-plugin');
    config.optimization.minimizer = [new Terser({ extractComments: false })];
  }
  if (web) {
    // Scripts are found beside the page, not by webpack's guess from `document.currentScript`.
    config.output.publicPath = '';
    Object.assign(config.optimization, {
      ...(inlineRuntime ? {} : { runtimeChunk: 'single' }),
      splitChunks: { chunks: 'initial', minSize: 0, cacheGroups: { vendors: { test: /node_modules/, name: 'vendors', enforce: true } } },
    });
  }
  webpack(config, (err, stats) => {
    if (err || stats.hasErrors()) {
      console.error(err || stats.toString('errors-only'));
      process.exit(1);
    }
    const json = stats.toJson({ all: false, modules: true, chunks: true, assets: true, ids: true, entrypoints: true });
    const modules = [];
    for (const m of json.modules) {
      // Concatenated (scope-hoisted) modules are emitted as one module with the first's id.
      if (m.id === null || m.id === undefined) continue;
      modules.push({ id: String(m.id), name: m.name });
    }
    const js = json.assets.map(a => a.name).filter(n => n.endsWith('.js'));
    // The entry point's files in the order a page loads them, then the async chunks.
    const initial = web
      ? json.entrypoints.main.assets.map(a => (typeof a === 'string' ? a : a.name))
      : ['main.js'];
    const files = [...initial, ...js.filter(n => !initial.includes(n)).sort()];
    fs.writeFileSync(path.join(outDir, 'stats.json'), JSON.stringify({ files, initial, modules }, null, 1));
  });
}

if (['webpack5', 'webpack5-web', 'webpack5-web-inline-runtime', 'webpack5-plain', 'webpack5-dev', 'webpack5-licenses'].includes(bundler)) {
  webpackBuild(
    require('webpack'),
    bundler.includes('-web'),
    bundler.endsWith('-plain'),
    bundler.endsWith('-dev'),
    bundler.endsWith('-licenses'),
    false,
    bundler.endsWith('-inline-runtime'),
  );
} else if (bundler === 'rslib-esm') {
  // rslib on rspack (tools/bundlers/rspack, its own install), an ES module library for node,
  // not minified: main.js imports the runtime's chunk, which hands the CommonJS modules it
  // keeps to `__webpack_require__.add({"path"(module, exports, require) {...}})`, and the
  // chunk a dynamic import loads does the same with the runtime imported from it.
  const work = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'rslib-'));
  const config = {
    lib: [{ format: 'esm', bundle: true, syntax: 'es2021', autoExternal: false, dts: false }],
    source: { entry: { main: entry } },
    output: { target: 'node', minify: false, distPath: { root: outDir } },
  };
  fs.writeFileSync(path.join(work, 'rslib.config.mjs'), `export default ${JSON.stringify(config)};\n`);
  const rslib = path.join(__dirname, 'rspack', 'node_modules', '.bin', 'rslib');
  const built = require('node:child_process').spawnSync(rslib, ['build', '-c', 'rslib.config.mjs'], {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, NODE_PATH: path.join(__dirname, 'node_modules') },
  });
  fs.rmSync(work, { recursive: true, force: true });
  if (built.status !== 0) {
    console.error(built.stdout, built.stderr);
    process.exit(1);
  }
  const js = fs.readdirSync(outDir).filter(n => n.endsWith('.js') && n !== 'main.js').sort();
  fs.writeFileSync(path.join(outDir, 'stats.json'), JSON.stringify({ files: ['main.js', ...js], initial: ['main.js'], modules: [] }, null, 1));
} else if (bundler === 'webpack5-methods') {
  webpackBuild(require('webpack-latest'), false, false, false, false, false, false, true);
} else if (['webpack4', 'webpack4-web', 'webpack4-web-hashed', 'webpack4-web-inline-runtime'].includes(bundler)) {
  webpackBuild(require('webpack4'), bundler !== 'webpack4', false, false, false, bundler.endsWith('-hashed'), bundler.endsWith('-inline-runtime'));
} else if (['esbuild', 'esbuild-plain', 'esbuild-map', 'esbuild-esm', 'esbuild-esm-map', 'esbuild-esm-split', 'esbuild-comments'].includes(bundler)) {
  // esbuild-esm*: ES module output (`.mjs`, so that node runs it as one), split into an entry
  // and `chunk-*.mjs` files that import each other with esbuild-esm-split; *-map: with the
  // source map beside the bundle (`main.js.map`).
  const esm = bundler.startsWith('esbuild-esm');
  const split = bundler === 'esbuild-esm-split';
  const result = require('esbuild').buildSync({
    entryPoints: { main: entry },
    bundle: true,
    platform: 'node',
    format: esm ? 'esm' : 'cjs',
    // esbuild-plain: not minified, so the bundle names its modules by their paths.
    minify: !['esbuild-plain', 'esbuild-comments'].includes(bundler),
    ...(bundler === 'esbuild-comments' ? { minifyIdentifiers: true, minifySyntax: true } : {}),
    sourcemap: bundler.endsWith('-map'),
    splitting: split,
    outdir: outDir,
    ...(esm ? { outExtension: { '.js': '.mjs' }, chunkNames: 'chunk-[hash]' } : {}),
    nodePaths: [path.join(__dirname, 'node_modules')],
    ...(appOptions.mainFields ? { mainFields: appOptions.mainFields } : {}),
    metafile: true,
    logLevel: 'error',
  });
  const inputs = Object.keys(result.metafile.inputs).sort();
  const main = esm ? 'main.mjs' : 'main.js';
  const chunks = Object.keys(result.metafile.outputs)
    .map(o => path.basename(o))
    .filter(n => n !== main && !n.endsWith('.map'))
    .sort();
  fs.writeFileSync(
    path.join(outDir, 'stats.json'),
    JSON.stringify({ files: [main, ...chunks], initial: [main], modules: inputs.map(name => ({ id: name, name })) }, null, 1),
  );
} else if (bundler === 'esbuild-plain-two') {
  // Two programs built apart (APP/index.js as main.js, APP/other.js as other.js, which
  // main.js requires), not minified: each holds its own copy of the packages they share,
  // keyed by the same paths.
  const other = path.join(appDir, 'other.js');
  require('esbuild').buildSync({
    entryPoints: { main: entry, other },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outdir: outDir,
    absWorkingDir: __dirname,
    external: ['./other.js'],
    nodePaths: [path.join(__dirname, 'node_modules')],
    logLevel: 'error',
  });
  fs.writeFileSync(path.join(outDir, 'stats.json'), JSON.stringify({ files: ['main.js', 'other.js'], initial: ['main.js'], modules: [] }, null, 1));
} else if (['rolldown', 'rolldown-minify', 'rolldown-js', 'rolldown-cjs'].includes(bundler)) {
  // rolldown, ES modules for node: main.mjs and the chunk its dynamic import loads, which
  // imports the `__commonJSMin` helper from main.mjs; the wrapped functions sit in
  // parentheses. rolldown-js: minified, the files named `.js` (for a package that says
  // `"type": "module"`). rolldown-cjs: minified CommonJS, main.cjs and its chunk, which
  // requires main.cjs and calls the helpers on what it required (`e.m(...)`).
  const ext = { 'rolldown-js': 'js', 'rolldown-cjs': 'cjs' }[bundler] || 'mjs';
  const format = bundler === 'rolldown-cjs' ? 'cjs' : 'esm';
  require('rolldown')
    .rolldown({ input: entry, platform: 'node', logLevel: 'silent', resolve: { modules: [path.join(__dirname, 'node_modules'), 'node_modules'] } })
    .then((b) => b.write({ dir: outDir, format, minify: bundler !== 'rolldown', entryFileNames: `main.${ext}`, chunkFileNames: `chunk-[hash].${ext}` }))
    .then((written) => {
      const chunks = written.output.map((o) => o.fileName).filter((n) => n !== `main.${ext}`).sort();
      fs.writeFileSync(path.join(outDir, 'stats.json'), JSON.stringify({ files: [`main.${ext}`, ...chunks], initial: [`main.${ext}`], modules: [] }, null, 1));
    })
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
} else if (['esbuild-esm-meta'].includes(bundler)) {
  // An ES module minified as the agent CLIs ship it: a banner gives the bundle a `require`
  // made from its own URL, and the app keeps `import.meta` and top-level `await`.
  require('esbuild').buildSync({
    entryPoints: { main: entry },
    bundle: true,
    platform: 'node',
    format: 'esm',
    minify: true,
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    banner: { js: 'import{createRequire as __banner}from"node:module";const require=__banner(import.meta.url);' },
    nodePaths: [path.join(__dirname, 'node_modules')],
    logLevel: 'error',
  });
  fs.writeFileSync(path.join(outDir, 'stats.json'), JSON.stringify({ files: ['main.mjs'], initial: ['main.mjs'], modules: [] }, null, 1));
} else if (['bun', 'bun-minify'].includes(bundler)) {
  // Bun's own bundler (the `bun` package's binary), for node: an ES module `main.js`.
  const { execFileSync } = require('node:child_process');
  const bun = path.join(__dirname, 'node_modules', '.bin', 'bun');
  execFileSync(bun, ['build', entry, '--target=node', `--outfile=${path.join(outDir, 'main.mjs')}`, ...(bundler === 'bun-minify' ? ['--minify'] : [])], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, NODE_PATH: path.join(__dirname, 'node_modules') },
  });
  fs.writeFileSync(path.join(outDir, 'stats.json'), JSON.stringify({ files: ['main.mjs'], initial: ['main.mjs'], modules: [] }, null, 1));
} else if (bundler === 'tsup-cjs-split') {
  // tsup (from tsup/, its own install), CommonJS with code splitting: esbuild's ES module
  // chunks rewritten to CommonJS by sucrase, the app's main.js and other.js as entries.
  require(path.join(__dirname, 'tsup', 'node_modules', 'tsup'))
    .build({
      entry: { main: path.join(appDir, 'main.js'), other: path.join(appDir, 'other.js') },
      format: ['cjs'],
      splitting: true,
      outDir,
      silent: true,
      config: false,
    })
    .then(() => {
      const chunks = fs.readdirSync(outDir).filter((n) => n.endsWith('.js') && n !== 'main.js').sort();
      fs.writeFileSync(path.join(outDir, 'stats.json'), JSON.stringify({ files: ['main.js', ...chunks], initial: ['main.js'], modules: [] }, null, 1));
    })
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
} else if (bundler === 'rollup2-commonjs') {
  // rollup 2 with @rollup/plugin-commonjs 17 (from rollup2/, its own install): each CommonJS
  // module becomes `var x = createCommonjsModule(function (module, exports) {...})`, run
  // where it is, in the scope-hoisted code: main.js.
  const from = (name) => require(path.join(__dirname, 'rollup2', 'node_modules', name));
  const { nodeResolve } = from('@rollup/plugin-node-resolve');
  from('rollup')
    .rollup({
      input: entry,
      plugins: [nodeResolve({ preferBuiltins: true, modulePaths: [path.join(__dirname, 'node_modules')] }), from('@rollup/plugin-commonjs')()],
      onwarn() {},
    })
    .then((b) => b.write({ file: path.join(outDir, 'main.js'), format: 'cjs', exports: 'auto', inlineDynamicImports: true }))
    .then(() => fs.writeFileSync(path.join(outDir, 'stats.json'), JSON.stringify({ files: ['main.js'], initial: ['main.js'], modules: [] }, null, 1)))
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
} else if (['rollup-commonjs', 'rollup-commonjs-minify', 'rollup-esbuild-inside', 'rollup-commonjs-chunks'].includes(bundler)) {
  // rollup with @rollup/plugin-commonjs (and node-resolve), one CommonJS file: each
  // CommonJS module becomes a lazy `requireX()` wrapper. rollup-esbuild-inside: the app's
  // inner.js is first built by esbuild into an ES module (OUT/inner/inner.mjs), which the app
  // imports as ./dist/inner.mjs, so that esbuild's helpers and wrappers sit in rollup's top
  // level too.
  const inner = path.join(outDir, 'inner', 'inner.mjs');
  if (bundler === 'rollup-esbuild-inside') {
    require('esbuild').buildSync({
      entryPoints: [path.join(appDir, 'inner.js')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: inner,
      nodePaths: [path.join(__dirname, 'node_modules')],
      logLevel: 'error',
    });
  }
  const { rollup } = require('rollup');
  const commonjs = require('@rollup/plugin-commonjs');
  const { nodeResolve } = require('@rollup/plugin-node-resolve');
  rollup({
    input: entry,
    plugins: [{ name: 'inner', resolveId: (id) => (id === './dist/inner.mjs' ? inner : null) }, nodeResolve({ preferBuiltins: true, modulePaths: [path.join(__dirname, 'node_modules')] }), commonjs()],
    onwarn() {},
  })
    .then((b) =>
      bundler === 'rollup-commonjs-chunks'
        ? b.write({ dir: outDir, format: 'cjs', entryFileNames: 'main.js', chunkFileNames: 'chunk-[name].js' })
        : b.write({
            file: path.join(outDir, 'main.js'),
            format: 'cjs',
            inlineDynamicImports: true,
            // rollup-commonjs-minify: as Vite's library mode minifies each chunk rollup
            // renders, with esbuild's transform.
            ...(bundler === 'rollup-commonjs-minify'
              ? { plugins: [{ name: 'minify', renderChunk: (code) => require('esbuild').transformSync(code, { minify: true, format: 'cjs', platform: 'node' }).code }] }
              : {}),
          }),
    )
    .then((written) => {
      const chunks = written.output.map((o) => o.fileName).filter((n) => n !== 'main.js').sort();
      fs.writeFileSync(path.join(outDir, 'stats.json'), JSON.stringify({ files: ['main.js', ...chunks], initial: ['main.js'], modules: [] }, null, 1));
    })
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
} else {
  console.error(`unknown bundler ${bundler}: use webpack5, webpack4, webpack5-web, webpack4-web, webpack4-web-hashed, webpack5-web-inline-runtime, webpack4-web-inline-runtime, webpack5-plain, webpack5-dev, webpack5-licenses, esbuild, esbuild-plain, esbuild-map, esbuild-esm, esbuild-esm-map, esbuild-esm-split, esbuild-comments, esbuild-plain-two, webpack5-methods, esbuild-esm-meta, rolldown, rolldown-minify, rolldown-js, rolldown-cjs, bun, bun-minify, rollup-commonjs, rollup-commonjs-minify, rollup-esbuild-inside, rollup-commonjs-chunks, rollup2-commonjs or tsup-cjs-split`);
  process.exit(2);
}
