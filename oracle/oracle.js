// The oracle: answers questions with Copilot's own completions library, one JSON request per
// line on standard input, one JSON answer per line on standard output, in order.
//
// Request:  {"op": "...", ...arguments}
// Answer:   {"ok": result} or {"err": "message"}
//
// Every answer comes from chat-lib's exported functions and classes as published; nothing here
// reimplements their behaviour. Text crosses the pipe as JSON, whose strings carry any Unicode
// text exactly (lone surrogates are never sent: the Rust side only has valid UTF-8).
'use strict';
const path = require('node:path');
const readline = require('node:readline');

const dist = path.join(__dirname, 'node_modules', '@vscode', 'chat-lib', 'dist', 'src', '_internal');
const core = path.join(dist, 'extension', 'completions-core', 'vscode-node');
const promptSrc = path.join(core, 'prompt', 'src');

const tokenization = require(path.join(promptSrc, 'tokenization'));
const markers = require(path.join(promptSrc, 'languageMarker.js'));
const prompt = require(path.join(promptSrc, 'prompt.js'));
const similarFiles = require(path.join(promptSrc, 'snippetInclusion', 'similarFiles.js'));
const languageDetection = require(path.join(core, 'lib', 'src', 'language', 'languageDetection.js'));
const openTabFiles = require(path.join(core, 'lib', 'src', 'prompt', 'similarFiles', 'openTabFiles.js'));
const libPrompt = path.join(core, 'lib', 'src', 'prompt');
// The prompt factory first: loading a renderer module on its own trips a require cycle.
require(path.join(libPrompt, 'completionsPromptFactory', 'componentsCompletionsPromptFactory.js'));
const elision = require(path.join(libPrompt, 'components', 'elision.js'));
const renderer = require(path.join(libPrompt, 'components', 'completionsPromptRenderer.js'));
const promptLib = require(path.join(libPrompt, 'prompt.js'));
const libSrc = path.join(core, 'lib', 'src');
const splitContextPrompt = require(path.join(libPrompt, 'components', 'splitContextPrompt.js'));
const splitRenderer = require(path.join(libPrompt, 'components', 'splitContextPromptRenderer.js'));
const { VirtualPrompt } = require(path.join(promptSrc, 'components', 'virtualPrompt.js'));
const { CopilotTextDocument } = require(path.join(libSrc, 'textDocument.js'));
const { TextDocumentManager } = require(path.join(libSrc, 'textDocumentManager.js'));
const { NeighborSource } = require(path.join(libPrompt, 'similarFiles', 'neighborFiles.js'));
const { OpenTabFiles } = require(path.join(libPrompt, 'similarFiles', 'openTabFiles.js'));
const { FullRecentEditsProvider } = require(path.join(libPrompt, 'recentEdits', 'recentEditsProvider.js'));
const suggestions = require(path.join(libSrc, 'suggestions', 'suggestions.js'));
const anomaly = require(path.join(libSrc, 'suggestions', 'anomalyDetection.js'));
const normalizeIndent = require(path.join(libSrc, 'ghostText', 'normalizeIndent.js'));
const parse = require(path.join(promptSrc, 'parse.js'));
const parseBlock = require(path.join(promptSrc, 'parseBlock.js'));
const libParseBlock = require(path.join(libPrompt, 'parseBlock.js'));
const { CompletionsCache } = require(path.join(libSrc, 'ghostText', 'completionsCache.js'));
const openai = require(path.join(libSrc, 'openai', 'openai.js'));
const { URI } = require(path.join(dist, 'util', 'vs', 'base', 'common', 'uri.js'));
const nes = require('./nes.js');

const SEVERITY = { error: 0, warning: 1, information: 2, hint: 3 };

const OPTION_SETS = {
  default: similarFiles.defaultSimilarFilesOptions,
  conservative: similarFiles.conservativeFilesOptions,
  cpp: similarFiles.defaultCppSimilarFilesOptions,
  none: similarFiles.nullSimilarFilesOptions,
};

function exactTokenizer(name) {
  const t = tokenization.getTokenizer(name);
  if (!(t instanceof tokenization.TTokenizer)) {
    throw new Error(`chat-lib fell back to an inexact tokenizer for ${name}: run oracle/setup.sh`);
  }
  return t;
}

function tokenizerFor(req) {
  if (req.approximate) {
    return new tokenization.ApproximateTokenizer(req.tokenizer, req.languageId);
  }
  return exactTokenizer(req.tokenizer);
}

function fileUri(p) {
  return URI.file(p.startsWith('/') ? p : '/workspace/' + p).toString();
}

const ops = {
  encode: req => exactTokenizer(req.tokenizer).tokenize(req.text),
  count: req => tokenizerFor(req).tokenLength(req.text),
  decode: req => exactTokenizer(req.tokenizer).detokenize(req.ids),
  take_first: req => {
    const r = tokenizerFor(req).takeFirstTokens(req.text, req.n);
    return { text: r.text, tokens: r.tokens.length };
  },
  take_last: req => {
    const r = tokenizerFor(req).takeLastTokens(req.text, req.n);
    return { text: r.text, tokens: r.tokens.length };
  },
  take_last_lines: req => tokenizerFor(req).takeLastLinesTokens(req.text, req.n),
  comment: req => markers.comment(req.text, req.languageId),
  comment_block: req => markers.commentBlockAsSingles(req.text, req.languageId),
  language_marker: req => markers.getLanguageMarker({ source: req.source, languageId: req.languageId }),
  path_marker: req => markers.getPathMarker({ relativePath: req.relativePath ?? undefined }),
  is_shebang_line: req => markers.isShebangLine(req.line),
  has_language_marker: req => markers.hasLanguageMarker({ source: req.source }),
  markdown_language: req => markers.mdCodeBlockLangToLanguageId(req.id) ?? null,
  normalize_language_id: req => prompt.normalizeLanguageId(req.languageId),
  detect_language_path: req => languageDetection.detectLanguage({ uri: fileUri(req.path), languageId: req.languageId }),
  detect_language_uri: req => languageDetection.detectLanguage({ uri: req.uri, languageId: req.languageId }),
  similar_snippets: async req => {
    const doc = { source: req.source, offset: req.offset, languageId: req.languageId, uri: fileUri('current'), relativePath: 'current' };
    const files = req.files.map(f => ({ source: f.source, relativePath: f.relativePath, uri: fileUri(f.relativePath) }));
    const options = OPTION_SETS[req.options];
    if (!options) throw new Error(`unknown option set ${req.options}`);
    const snippets = await similarFiles.getSimilarSnippets(doc, files, options);
    return snippets.map(s => ({ path: s.relativePath, score: s.score, startLine: s.startLine, endLine: s.endLine, text: s.snippet }));
  },
  // Copilot's elision on blocks as its renderer builds them: each block has a unique component
  // path; blocks of one chunk share a chunk id.
  elide: req => {
    const blocks = req.blocks.map((b, i) => ({
      type: b.type,
      value: b.value,
      weight: b.weight,
      componentPath: `/block/${i}`,
      nodeStatistics: {},
      chunks: b.chunk === null || b.chunk === undefined ? undefined : new Set([`/chunk/${b.chunk}`]),
      index: b.type === 'context' ? b.index : undefined,
    }));
    const suffixBlock = { type: 'suffix', value: req.suffix, weight: 1, componentPath: '/suffix', nodeStatistics: {} };
    const { blocks: [suffix, ...prefix] } = new elision.WishlistElision().elide(blocks, req.prefixLimit, suffixBlock, req.suffixLimit, exactTokenizer(req.tokenizer));
    return {
      suffix: { elidedValue: suffix.elidedValue, elidedTokens: suffix.elidedTokens, tokens: suffix.tokens },
      blocks: prefix.map(b => ({ elidedValue: b.elidedValue, elidedTokens: b.elidedTokens, tokens: b.tokens })),
      prefix: elision.makePrefixPrompt(prefix),
      all: elision.makePrompt(prefix),
      context: elision.makeContextPrompt(prefix),
    };
  },
  prompt_limits: req => new renderer.CompletionsPromptRenderer().getPromptLimits({ value: req.suffix }, { promptTokenLimit: req.max, suffixPercent: req.suffixPercent }),
  trim_last_line: req => promptLib.trimLastLine(req.source),
  // The whole prompt as Copilot's production pipeline builds it: its split-context component
  // tree, rendered by its split-context renderer, then its last-line trim. The host services the
  // components ask for are given the answers a plain editor would give: one workspace folder,
  // the open tabs in the request's order, no notebooks, no recent edits, no related files, no
  // experiments.
  prompt: async req => {
    const rootUri = URI.file(req.workspaceRoot).toString();
    const toDoc = d => CopilotTextDocument.create(URI.file(d.path).toString(), d.languageId, 1, d.text);
    const document = toDoc(req.document);
    const open = req.openDocuments.map(toDoc);
    const folders = { getWorkspaceFolders: () => [{ uri: rootUri }] };
    const tdms = {
      getRelativePath: doc => TextDocumentManager.prototype.getRelativePath.call(folders, doc),
      findNotebook: () => undefined,
      textDocuments: async () => open,
      getTextDocument: async ({ uri }) => [document, ...open].find(d => d.uri === uri),
      getWorkspaceFolder: () => ({ uri: rootUri }),
    };
    const features = {
      maxPromptCompletionTokens: () => req.maxPromptTokens + 500,
      suffixPercent: () => req.suffixPercent,
      suffixMatchThreshold: () => 10,
      excludeRelatedFiles: () => true,
      includeNeighboringFiles: () => false,
    };
    // Recent edits: chat-lib's own provider, fed the snapshots in order, its clock a counter so
    // that edit times are deterministic (pilotfish keeps a logical clock too).
    let clock = 0;
    const realNow = performance.now;
    performance.now = () => ++clock;
    const recentEdits = new FullRecentEditsProvider(undefined, undefined);
    recentEdits._started = true;
    try {
      for (const snap of req.recentEdits ?? []) recentEdits.updateRecentEdits(URI.file(snap.path).toString(), snap.text);
    } finally {
      performance.now = realNow;
    }
    const services = {
      ICompletionsFeaturesService: features,
      ICompletionsTextDocumentManagerService: tdms,
      ICompletionsConfigProvider: { getConfig: () => undefined },
      ICompletionsRecentEditsProviderService: (req.recentEdits ?? []).length ? recentEdits : { isEnabled: () => false },
      ICompletionsLogTargetService: { logIt: () => undefined },
    };
    const accessor = {
      get: id => {
        const name = String(id);
        if (name === 'instantiationService') return instantiation;
        const service = services[name];
        if (!service) throw new Error(`oracle: no stand-in for service ${name}`);
        return service;
      },
    };
    const instantiation = {
      invokeFunction: (fn, ...args) => fn(accessor, ...args),
      createInstance: (ctor, ...args) => new ctor(...args, tdms),
    };
    NeighborSource.instance = new OpenTabFiles(tdms);
    const virtualPrompt = new VirtualPrompt(splitContextPrompt.splitContextCompletionsPrompt(accessor));
    const pipe = virtualPrompt.createPipe();
    await pipe.pump({
      document,
      position: req.position,
      telemetryData: { filtersAndExp: { exp: { variables: {} } } },
      traits: req.traits.length ? req.traits.map((t, i) => ({ ...t, id: `t${i}`, type: 'Trait' })) : undefined,
      codeSnippets: req.codeSnippets.length ? req.codeSnippets.map((c, i) => ({ ...c, uri: URI.file(c.path).toString(), id: `c${i}`, type: 'CodeSnippet' })) : undefined,
      diagnostics: req.diagnostics.length
        ? req.diagnostics.map((bag, i) => ({
            type: 'DiagnosticBag',
            id: `d${i}`,
            uri: URI.file(bag.path),
            importance: bag.importance ?? undefined,
            values: bag.values.map(v => ({ ...v, severity: SEVERITY[v.severity] })),
          }))
        : undefined,
      // What the factory's (unexported) similarFilesEnabled decides for a host without
      // experiments: code snippets from a context provider turn similar files off, except in C/C++.
      turnOffSimilarFiles: req.codeSnippets.length > 0 && !['cpp', 'c'].includes(document.detectedLanguageId),
      suffixMatchThreshold: 10,
      maxPromptTokens: req.maxPromptTokens,
      tokenizer: req.tokenizer,
    });
    const snapshot = virtualPrompt.snapshot();
    if (snapshot.status !== 'ok') throw new Error(`snapshot ${snapshot.status}: ${snapshot.error}`);
    const rendered = new splitRenderer.SplitContextPromptRenderer().render(snapshot.snapshot, {
      delimiter: '\n',
      tokenizer: req.tokenizer,
      promptTokenLimit: req.maxPromptTokens,
      suffixPercent: req.suffixPercent,
      languageId: document.detectedLanguageId,
    });
    if (rendered.status !== 'ok') throw new Error(`render ${rendered.status}: ${rendered.error && rendered.error.stack}`);
    const [prefix, trailingWs] = promptLib.trimLastLine(rendered.prefix);
    return { prefix, suffix: rendered.suffix, context: rendered.context, prefixTokens: rendered.prefixTokens, suffixTokens: rendered.suffixTokens, trailingWs };
  },
  snip: req => suggestions.maybeSnipCompletionImpl(
    { getLineText: i => req.lines[i], getLineCount: () => req.lines.length },
    { line: req.line, character: 0 },
    req.completion,
    req.token,
  ),
  check_suffix: req => suggestions.checkSuffix({ lineAt: () => ({ text: req.rest }) }, { line: 0, character: 0 }, { completionText: req.completion }),
  normalize_indent: req => normalizeIndent.normalizeIndentCharacter(
    { tabSize: req.tabSize ?? undefined, insertSpaces: req.insertSpaces ?? undefined },
    { completionText: req.text, displayText: req.text },
    req.isEmptyLine,
  ).completionText,
  is_repetitive: req => anomaly.isRepetitive(req.tokens),
  // What maybeSnipCompletion does around getBlockCloseToken: unsupported languages throw, and
  // both that and a null answer fall back to `}`.
  block_close_token: req => {
    try {
      return parse.getBlockCloseToken(req.languageId) ?? '}';
    } catch {
      return '}';
    }
  },
  // A sequence of appends and lookups on one of Copilot's completion caches, its clock a
  // counter so that least-recently-used eviction is deterministic.
  cache_ops: req => {
    let clock = 0;
    const realNow = performance.now;
    performance.now = () => ++clock;
    try {
      const cache = new CompletionsCache();
      const telemetryData = { extendedBy: () => ({}) };
      const out = [];
      for (const op of req.ops) {
        if (op.append) {
          cache.append(op.prefix, op.suffix, { completionText: op.completion, telemetryData });
        } else {
          out.push(cache.findAll(op.prefix, op.suffix).map(c => c.completionText));
        }
      }
      return out;
    } finally {
      performance.now = realNow;
    }
  },
  // Block parsing with tree-sitter; offsets and lengths are in UTF-16 units, as chat-lib's.
  empty_block_start: async req => {
    try {
      return await parseBlock.isEmptyBlockStart(req.languageId, req.text, req.offset);
    } catch (e) {
      // ghostTextStrategy treats a failure as "not multi-line".
      return false;
    }
  },
  block_finished: async req =>
    (await parseBlock.isBlockBodyFinished(req.languageId, req.prefix, req.completion, req.prefix.length)) ?? null,
  // Indentation mode, for languages without a parser: the context's indentation at an offset
  // (UTF-16), and where a completion leaves the block (UTF-16 length or null).
  context_indentation: req => libParseBlock.contextIndentationFromText(req.source, req.offset, req.languageId),
  indentation_finished: req =>
    libParseBlock.indentationBlockFinished(req.context, undefined)(req.completion) ?? null,
  stops: req => openai.getStops(req.languageId),
  temperature: req => openai.getTemperatureForSamples({ isRunningInTest: () => false }, req.n),
  neighbours: req => {
    // OpenTabFiles.truncateDocs is the selection Copilot applies to its open tabs (already in
    // order of recent use); the document manager is only asked for relative paths.
    const docManager = { getRelativePath: doc => doc.relativePath };
    const tabs = new openTabFiles.OpenTabFiles(docManager);
    const docs = req.docs.map(d => ({
      uri: fileUri(d.path),
      relativePath: d.path,
      detectedLanguageId: d.languageId,
      getText: () => d.text,
    }));
    const chosen = tabs.truncateDocs(docs, fileUri(req.path), req.languageId, req.maxFiles);
    return Array.from(chosen.values()).map(d => ({ path: d.relativePath, text: d.source }));
  },
  // Next edit suggestions through chat-lib's createNESProvider, offline (see nes.js).
  nes_request: req => nes.nesRequest(req),
  nes_edit: req => nes.nesEdit(req),
};

// Text that chat-lib cuts with JavaScript's UTF-16 `slice` can end in half a surrogate pair.
// It becomes U+FFFD when the prompt is encoded as UTF-8 to be sent, which is also how it leaves
// this process (JSON cannot carry lone surrogates to a UTF-8 reader).
function wellFormed(_key, value) {
  return typeof value === 'string' ? value.toWellFormed() : value;
}

async function main() {
  await tokenization.ensureTokenizersLoaded();
  // Trust no comparison until the vocabularies are proven exact.
  const known = exactTokenizer('cl100k_base').tokenize('This is some text');
  if (JSON.stringify(known) !== '[2028,374,1063,1495]') {
    throw new Error(`cl100k_base gave ${JSON.stringify(known)} for "This is some text": the vocabulary is wrong`);
  }
  exactTokenizer('o200k_base');

  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line) continue;
    let answer;
    try {
      const req = JSON.parse(line);
      const op = ops[req.op];
      if (!op) throw new Error(`unknown op ${req.op}`);
      answer = { ok: await op(req) };
    } catch (e) {
      answer = { err: String(e && e.stack ? e.stack : e) };
    }
    process.stdout.write(JSON.stringify(answer, wellFormed) + '\n');
  }
}

// Run as a program, answer requests; required (by bench.js), just give the operations.
if (require.main === module) {
  main().catch(e => {
    process.stderr.write(`oracle: ${e && e.stack ? e.stack : e}\n`);
    process.exit(1);
  });
}
module.exports = { ops };
