// Next edit suggestions as Copilot's own library makes them: chat-lib's createNESProvider, run
// offline. Each request gets a fresh provider over a fresh MutableObservableWorkspace (chat-lib's
// own), so the library's history trackers see the documents open, the user's edits applied in
// order and the cursor set, exactly as an editor host would report them. Every HTTP request the
// library makes goes to a capturing fetcher that records it and answers from the request's
// script; nothing leaves the process.
//
// Only the host is simulated here (workspace events, network, token); the prompt, the model
// choice and the parsing of the answer into an edit are all chat-lib's.
'use strict';
const path = require('node:path');

const lib = path.join(__dirname, 'node_modules', '@vscode', 'chat-lib', 'dist', 'src');
const dist = path.join(lib, '_internal');

function pick(module, ...names) {
  return Object.fromEntries(names.map(n => [n, module[n]]));
}

// Loaded on first use: main.js pulls in all of chat-lib, which the other operations never need.
let chatLib;
function load() {
  if (chatLib) return chatLib;
  const req = p => require(path.join(dist, p));
  chatLib = {
    ...pick(require(path.join(lib, 'main.js')), 'createNESProvider', 'IAuthenticationService'),
    ...req('platform/inlineEdits/common/observableWorkspace.js'),
    ...req('platform/inlineEdits/common/dataTypes/documentId.js'),
    ...req('platform/inlineEdits/common/dataTypes/languageId.js'),
    ...req('util/vs/editor/common/core/edits/stringEdit.js'),
    ...req('util/vs/editor/common/core/ranges/offsetRange.js'),
    ...req('platform/authentication/common/copilotToken.js'),
    ...req('platform/networking/common/fetcherService.js'),
    ...req('util/vs/base/common/cancellation.js'),
    ConfigKey: req('platform/configuration/common/configurationService.js').ConfigKey,
    TokenizerProvider: req('platform/tokenizer/node/tokenizer.js').TokenizerProvider,
    Event: req('util/vs/base/common/event.js').Event,
    URI: req('util/vs/base/common/uri.js').URI,
  };
  // One tokenizer provider for all requests: each provider would otherwise load its own
  // vocabularies (a second or so each). It keeps no per-request state.
  chatLib.tokenizerProvider = new chatLib.TokenizerProvider(false, { sendMSFTTelemetryEvent: () => undefined });
  return chatLib;
}

// Settings that only set how long chat-lib waits (debounce, minimum response time, the backoff
// that stretches both); none of them touches the prompt or the parsing. Turned off so that
// answers come at once and never depend on the clock.
function timingOverrides(ConfigKey) {
  const t = ConfigKey.TeamInternal;
  return new Map([
    [t.InlineEditsDebounce.id, 0],
    [t.InlineEditsBackoffDebounceEnabled.id, false],
    [t.InlineEditsExtraDebounceEndOfLine.id, 0],
    [t.InlineEditsExtraDebounceInlineSuggestion.id, 0],
    [t.InlineEditsCacheDelay.id, 0],
  ]);
}

// The Copilot token's envelope as the token endpoint sends it. chat-lib reads `token` (the
// Authorization header, and the `;`-separated flags in its first part, such as `fcv1`) and `sku`;
// which of them a user has decides the default NES model.
const ACCOUNTS = {
  individual: { token: 'tid=pilotfish-oracle;exp=0', sku: 'monthly_subscriber' },
  fcv1: { token: 'tid=pilotfish-oracle;exp=0;fcv1=1', sku: 'monthly_subscriber' },
  free: { token: 'tid=pilotfish-oracle;exp=0', sku: 'free_limited_copilot' },
};

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

// The model's answer as the proxy streams it: server-sent events, one chat.completion.chunk per
// line of text, then a stop chunk and [DONE].
function sse(model, text) {
  const chunk = (delta, finish) =>
    'data: ' + JSON.stringify({ id: 'oracle', object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta, finish_reason: finish }] }) + '\n\n';
  const pieces = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  return [chunk({ role: 'assistant', content: '' }, null), ...pieces.map(p => chunk({ content: p }, null)), chunk({}, 'stop'), 'data: [DONE]\n\n'].join('');
}

// The fetcher chat-lib is given: it records every request and answers it. The model list gets an
// empty list (no NES model advertised, so chat-lib keeps its built-in default). Chat completions
// are answered from `script` in order; past the end of the script, or with a null entry, the
// answer is an HTTP 500 that chat-lib reports as a fetch failure.
function capturingFetcher(script) {
  const { Response, HeadersImpl } = load();
  const requests = [];
  let chats = 0;
  const reply = (status, body, contentType) =>
    Response.fromText(status, status === 200 ? 'OK' : 'Error', new HeadersImpl({ 'content-type': contentType }), body, 'test-stub');
  return {
    requests,
    getUserAgentLibrary: () => 'test-stub',
    async fetch(url, options) {
      const body = options.json ?? (options.body === undefined ? undefined : JSON.parse(options.body));
      requests.push({ url, method: options.method ?? 'GET', headers: { ...options.headers }, body });
      if (url.endsWith('/models')) return reply(200, JSON.stringify({ models: [] }), 'application/json');
      if (url.endsWith('/chat/completions')) {
        const text = script[chats++];
        if (typeof text === 'string') return reply(200, sse(body.model, text), 'text/event-stream');
        return reply(500, 'pilotfish oracle: no answer scripted for this request', 'text/plain');
      }
      return reply(404, 'pilotfish oracle: unknown endpoint', 'text/plain');
    },
    disconnectAll: async () => undefined,
    makeAbortController: () => new AbortController(),
    isAbortError: e => e && e.name === 'AbortError',
    isInternetDisconnectedError: () => false,
    isFetcherError: () => false,
    isNetworkProcessCrashedError: () => false,
    getUserMessageForFetcherError: e => String(e),
    fetchWithPagination: async () => [],
  };
}

// Lets every pending callback and promise chain run; the fetcher answers from memory, so the
// library's background work (the rest of the stream, the model list) settles within a few turns.
async function settle() {
  for (let i = 0; i < 20; i++) await new Promise(resolve => setImmediate(resolve));
}

// An editor host has its Copilot token long before the first suggestion: chat-lib's own
// authentication service fetches it from the token manager into its token store, which is what
// picks the default model and starts the model-list request. The provider keeps its services to
// itself, so they are reached through the instantiation service of its xtab provider.
async function signIn(provider) {
  const { IAuthenticationService } = load();
  const insta = provider._nextEditProvider?._statelessNextEditProvider?.instaService;
  if (!insta) throw new Error('chat-lib\'s NES provider changed shape: cannot reach its authentication service');
  await insta.invokeFunction(accessor => accessor.get(IAuthenticationService)).getCopilotToken();
  await settle();
}

// Runs one request through a fresh provider. `script` answers the chat requests in order.
async function run(req, script) {
  const c = load();
  const account = ACCOUNTS[req.account ?? 'individual'];
  if (!account) throw new Error(`unknown account ${req.account}: one of ${Object.keys(ACCOUNTS).join(', ')}`);
  const fetcher = capturingFetcher(script);
  const tokenManager = {
    _serviceBrand: undefined,
    onDidCopilotTokenRefresh: c.Event.None,
    getCopilotToken: async () => new c.CopilotToken({ ...account }),
    resetCopilotToken: () => undefined,
  };
  const workspace = new c.MutableObservableWorkspace();
  const workspaceRoot = req.workspace_root ? c.URI.parse(req.workspace_root) : undefined;
  // Documents are known by their URI in VS Code's canonical spelling (URI.parse(..).toString()),
  // which is how the provider looks the cursor's document up.
  const canonical = uri => c.URI.parse(uri).toString();
  const docs = new Map();
  for (const d of req.documents) {
    const uri = canonical(d.uri);
    if (docs.has(uri)) throw new Error(`document ${d.uri} given twice`);
    docs.set(uri, workspace.addDocument({
      id: c.DocumentId.create(uri),
      initialValue: d.text,
      languageId: c.LanguageId.create(d.language_id),
      workspaceRoot,
    }));
  }
  const doc = uri => {
    const found = docs.get(canonical(uri));
    if (!found) throw new Error(`no document ${uri} in documents`);
    return found;
  };
  const provider = c.createNESProvider({
    workspace,
    fetcher,
    copilotTokenManager: tokenManager,
    terminalService: undefined,
    telemetrySender: { sendTelemetryEvent: () => undefined },
    // PILOTFISH_NES_LOG=1 shows chat-lib's own trace (model choice, edit window, filters) on stderr.
    logTarget: { logIt: process.env.PILOTFISH_NES_LOG ? (_level, msg) => process.stderr.write(`nes: ${msg}\n`) : () => undefined },
    editorInfo: { name: 'vscode', version: '1.104.0' },
    editorPluginInfo: { name: 'copilot-chat', version: '0.66.0' },
    configOverrides: timingOverrides(c.ConfigKey),
    tokenizerProvider: c.tokenizerProvider,
  });
  const cts = new c.CancellationTokenSource();
  try {
    await signIn(provider);
    // What an editor reports, in order: the ranges looked at (before the edits, which are the
    // most recent activity), then each edit with the caret left after its text, then the cursor.
    for (const v of req.viewed ?? []) doc(v.uri).setVisibleRange([new c.OffsetRange(v.start, v.end)]);
    for (const e of req.edits ?? []) {
      const target = doc(e.uri);
      target.applyEdit(c.StringEdit.single(c.StringReplacement.replace(new c.OffsetRange(e.start, e.end), e.text)));
      const caret = e.start + e.text.length;
      target.setSelection([new c.OffsetRange(caret, caret)]);
    }
    const cursorDoc = doc(req.cursor.uri);
    cursorDoc.setSelection([new c.OffsetRange(req.cursor.offset, req.cursor.offset)]);

    let result;
    let error;
    try {
      result = await provider.getNextEdit(c.URI.parse(req.cursor.uri), cts.token);
    } catch (e) {
      error = e;
    }
    await settle();
    return { result: result?.result ?? null, error, requests: fetcher.requests };
  } finally {
    cts.dispose();
    provider.dispose();
    workspace.clear();
  }
}

// A captured request as the op reports it. Header values chat-lib makes up per request (request,
// interaction and task ids) are random UUIDs: they read `<uuid>` so that answers are repeatable.
function describe(r) {
  const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v).replace(UUID, '<uuid>')]));
  return { url: r.url, method: r.method, headers, body: r.body ?? null };
}

// The first chat request (the NES model's), flattened: its body's fields, its URL and headers.
// The other requests made (the model list, the cursor-jump model's) follow with their place in
// the order all were made.
function chatRequest(requests) {
  const all = requests.map((r, order) => ({ order, ...describe(r) }));
  const first = all.find(r => r.url.endsWith('/chat/completions'));
  const others = all.filter(r => r !== first);
  if (!first) return { url: null, headers: null, other_requests: others };
  return { ...first.body, url: first.url, headers: first.headers, order: first.order, other_requests: others };
}

function checkRequest(req) {
  if (!Array.isArray(req.documents)) throw new Error('documents: expected an array');
  if (!req.cursor || typeof req.cursor.uri !== 'string' || typeof req.cursor.offset !== 'number') {
    throw new Error('cursor: expected {uri, offset}');
  }
}

// The request chat-lib sends for its default NES model. The model is given no answer (HTTP 500),
// so the library stops after that request. When chat-lib sends nothing (no edits yet, say), `url`
// is null; an error before any request is the op's error.
async function nesRequest(req) {
  checkRequest(req);
  const { error, requests } = await run(req, []);
  const captured = chatRequest(requests);
  if (error && captured.url === null) throw error;
  return captured;
}

// The edit chat-lib derives when its NES model answers `answer`. A model that proposes no change
// makes chat-lib ask its cursor-jump model where to go next; `answers` scripts the chat requests
// after the first (default: an empty answer, which chat-lib reads as "no jump").
async function nesEdit(req) {
  checkRequest(req);
  if (typeof req.answer !== 'string') throw new Error('answer: expected a string');
  const script = [req.answer, ...(req.answers ?? [''])];
  const { result, error, requests } = await run(req, script);
  if (error) throw error;
  return { result, request: chatRequest(requests) };
}

module.exports = { nesRequest, nesEdit };
