// A scripted editor for the acp tests: `node editor.js SCENARIO.json` starts an ACP agent,
// plays the scenario's steps against it as a real client would (through the official ACP
// TypeScript SDK), and prints one JSON transcript of everything that happened on standard output.
//
// The scenario (JSON):
//   agent         {argv: [program, ...args], env: {NAME: value}, cwd}: the agent's command line;
//                 env is added to this process's environment.
//   capabilities  the clientCapabilities offered in `initialize`, e.g.
//                 {fs: {readTextFile: true, writeTextFile: true}, terminal: false}.
//   buffers       {absolute path: text}: the editor's unsaved buffers. `fs/read_text_file` serves a
//                 buffer when there is one and the disk otherwise; `fs/write_text_file` records the
//                 write and puts it in the buffer, never on disk, as an editor with the file open does.
//   permissions   the answers to `session/request_permission`, in order: allow_once, allow_always,
//                 reject_once, reject_always (the option of that kind is picked) or cancelled.
//                 When the queue is empty the answer is cancelled and the record says unscripted.
//   steps         played in order; each {do: NAME, ...}:
//                   initialize      [protocolVersion]
//                   new_session     cwd, [mcpServers]
//                   load_session    [sessionId] (default the last session), cwd, [mcpServers]
//                   prompt          text, [sessionId], [cancel_after_first_chunk], [cancel_after_ms],
//                                   [close_stdin_after_first_chunk], [prompt_after_cancel]: a text
//                                   sent as the next prompt right after the cancel, without waiting
//                                   for the cancelled prompt's answer (a user typing again at once),
//                                   [prompt_while_running]: a text sent as another prompt after the
//                                   first chunk, with no cancel, [cancel_when_output]: a text; the
//                                   prompt is cancelled once an editor terminal has printed it
//                   raw             line: written to the agent as it is. A line that is a request
//                                   (with an id; use ids like "raw-1", which the SDK never uses) waits
//                                   for the answer with that id; a line that is not JSON waits for an
//                                   answer with id null; anything else waits wait_ms (default 0).
//                   request         method, [params]: any agent method, written as a raw line with
//                                   an id of its own ("req-N") and recorded in responses under that
//                                   method; a params.sessionId of "$last" is the last session. A
//                                   successful session/resume makes its session the last one.
//                   prompt_cancel_request
//                                   text, [sessionId]: a session/prompt written as a raw line, then,
//                                   after its first chunk, `$/cancel_request` for it; recorded as a
//                                   session/prompt with cancel_sent_ms and ms_after_cancel
//                   write_file      path, text: writes a file (the user editing the workspace)
//                   wait_for_update kind, text, [ms] (default step_ms): waits until a session/update
//                                   of that kind whose JSON contains text has come (an error if none)
//                   sdk_request     method, params: any request through the SDK's connection, such
//                                   as the unstable nes/* (the string "$nes" in params stands for
//                                   the sessionId the last nes/start answered, "$suggestion" for the
//                                   id of the first suggestion the last nes/suggest answered)
//                   sdk_notify      method, params: a notification the same way ("$nes" too)
//                   sleep           ms
//                   close_stdin     ends the steps early
//   terminal      with capabilities.terminal, the editor serves terminal/* as an editor does: each
//                 terminal/create runs its command as a child process (its own process group) and
//                 keeps its output (stdout and stderr, the newest outputByteLimit bytes);
//                 wait_for_exit, output, kill (the whole group) and release act on it.
//   timeouts      {step_ms (default 30000), exit_ms (default 10000), run_ms (default 120000)}
//
// The transcript: responses (every answer, with send time and milliseconds to the answer),
// updates (every `session/update` a client accepts, in order, with the step it came in), permissions
// (the options offered, the toolCall and the answer), fs (every fs/* call served), agent_requests
// (every request the agent sent, served or not), stray_lines (stdout lines that are not JSON),
// terminals (every terminal/* request served, with the step and time, and for each terminal
// the command, its output chunks as they arrived with their times, and how it ended),
// sdk_log (what the SDK complained about), errors, buffers (at the end), stderr, and exit (status,
// signal, milliseconds from closing stdin to the exit, and whether the editor had to kill it).
// A step that gets no answer in time, or a run that takes too long, is reported in errors and the
// agent is killed: the editor never hangs.

import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import * as acp from "@agentclientprotocol/sdk";

const start = performance.now();
const now = () => Math.round((performance.now() - start) * 10) / 10;

if (process.argv.length !== 3) {
  process.stderr.write("usage: node editor.js SCENARIO.json\n");
  process.exit(2);
}
const scenario = JSON.parse(readFileSync(process.argv[2], "utf8"));
const timeouts = { step_ms: 30000, exit_ms: 10000, run_ms: 120000, ...(scenario.timeouts ?? {}) };
const capabilities = scenario.capabilities ?? {
  fs: { readTextFile: false, writeTextFile: false },
  terminal: false,
};
const buffers = new Map(Object.entries(scenario.buffers ?? {}));
const answers = [...(scenario.permissions ?? [])];

const transcript = {
  responses: [],
  updates: [],
  permissions: [],
  fs: [],
  agent_requests: [],
  terminals: [],
  terminal_runs: {},
  stray_lines: [],
  sdk_log: [],
  errors: [],
  buffers: {},
  stderr: "",
  exit: null,
};

// The SDK reports messages it drops (a notification that fails the ACP schema, an answer to no
// request) only through console.error; keeping them makes such drops visible to the tests.
const consoleError = console.error;
console.error = (...args) => {
  transcript.sdk_log.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "));
  consoleError(...args);
};

// The agent process. Its stderr is kept (the tail, should it be large) for failure messages.
const agentSpec = scenario.agent ?? {};
const child = spawn(agentSpec.argv[0], agentSpec.argv.slice(1), {
  cwd: agentSpec.cwd ?? process.cwd(),
  env: { ...process.env, ...(agentSpec.env ?? {}) },
  stdio: ["pipe", "pipe", "pipe"],
});
let stderr = "";
child.stderr.on("data", (chunk) => {
  stderr = (stderr + chunk.toString("utf8")).slice(-200000);
});
let exited = null;
const exitedPromise = new Promise((resolve) => {
  child.on("exit", (code, signal) => {
    exited = { code, signal, at_ms: now() };
    resolve();
  });
  child.on("error", (error) => {
    transcript.errors.push(`the agent could not start: ${error.message}`);
    exited = { code: null, signal: null, at_ms: now() };
    resolve();
  });
});
child.stdin.on("error", (error) => {
  // Once the agent has exited, a failed write only repeats that; before, it is news.
  if (!exited) transcript.errors.push(`writing to the agent failed: ${error.message}`);
});

let stdinClosedAt = null;
function closeStdin() {
  if (stdinClosedAt === null) {
    stdinClosedAt = now();
    child.stdin.end();
  }
}

// Which step is being played: updates, permission requests and fs calls are tagged with it, so
// a test can tell the turns of one session apart.
let currentStep = -1;

// Every line the agent writes is looked at here before the SDK sees it: lines that are not JSON,
// every request the agent makes (even one the SDK would refuse), the number of session/update
// notifications on the wire (to notice ones the SDK dropped), and answers to raw lines.
const rawWaiters = [];
let wireUpdates = 0;
let pending = "";
function watchLine(line) {
  if (!line.trim()) return;
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    transcript.stray_lines.push(line);
    return;
  }
  if (message === null || typeof message !== "object" || Array.isArray(message)) {
    transcript.stray_lines.push(line);
    return;
  }
  if ("method" in message) {
    if ("id" in message) {
      transcript.agent_requests.push({ step: currentStep, at_ms: now(), method: message.method, params: message.params });
    } else if (message.method === "session/update") {
      wireUpdates += 1;
    }
    return;
  }
  if ("id" in message) {
    const i = rawWaiters.findIndex((w) => JSON.stringify(w.id) === JSON.stringify(message.id));
    if (i >= 0) {
      const [waiter] = rawWaiters.splice(i, 1);
      waiter.resolve(message);
    }
  }
}
// Once the SDK lets go of the stream (the connection closed), lines are still watched but no
// longer handed on.
let handingOn = true;
const fromAgent = new ReadableStream({
  start(controller) {
    child.stdout.on("data", (chunk) => {
      pending += chunk.toString("utf8");
      const lines = pending.split("\n");
      pending = lines.pop();
      lines.forEach(watchLine);
      if (handingOn) controller.enqueue(new Uint8Array(chunk));
    });
    child.stdout.on("end", () => {
      watchLine(pending);
      if (handingOn) {
        handingOn = false;
        controller.close();
      }
    });
  },
  cancel() {
    handingOn = false;
  },
});
const toAgent = new WritableStream({
  write(chunk) {
    return new Promise((resolve, reject) => {
      if (stdinClosedAt !== null || exited) {
        reject(new Error("the agent's standard input is closed"));
        return;
      }
      child.stdin.write(chunk, (error) => (error ? reject(error) : resolve()));
    });
  },
});

// Waiters for a text in an editor terminal's output, for cancel_when_output.
const outputWaiters = [];

// Waiters for the first agent_message_chunk of a session, for the cancel and close steps.
const chunkWaiters = [];
// Sessions whose turn the editor has cancelled: ACP says their permission requests are then
// answered `cancelled`, whatever the queue holds.
const cancelledSessions = new Set();
let acceptedUpdates = 0;

const app = acp
  .client({ name: "pilotfish-scripted-editor" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    acceptedUpdates += 1;
    transcript.updates.push({ step: currentStep, at_ms: now(), sessionId: params.sessionId, update: params.update });
    if (params.update.sessionUpdate === "agent_message_chunk") {
      for (let i = chunkWaiters.length - 1; i >= 0; i--) {
        if (chunkWaiters[i].sessionId === params.sessionId) chunkWaiters.splice(i, 1)[0].resolve();
      }
    }
  })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    let answer = cancelledSessions.has(params.sessionId) ? "cancelled" : answers.shift();
    const unscripted = answer === undefined;
    answer ??= "cancelled";
    const record = {
      step: currentStep,
      at_ms: now(),
      sessionId: params.sessionId,
      toolCall: params.toolCall,
      options: params.options,
      answer,
      unscripted,
    };
    transcript.permissions.push(record);
    if (answer === "cancelled") return { outcome: { outcome: "cancelled" } };
    const option = params.options.find((o) => o.kind === answer);
    if (!option) {
      transcript.errors.push(`permission request offered no ${answer} option; answered cancelled`);
      record.answer = "cancelled";
      return { outcome: { outcome: "cancelled" } };
    }
    record.optionId = option.optionId;
    return { outcome: { outcome: "selected", optionId: option.optionId } };
  });

// A client that did not offer a capability does not serve its methods: the SDK then answers
// "method not found", and agent_requests still shows the attempt.
if (capabilities.fs?.readTextFile) {
  app.onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
    transcript.fs.push({
      step: currentStep,
      method: "fs/read_text_file",
      path: params.path,
      line: params.line ?? null,
      limit: params.limit ?? null,
    });
    let text;
    if (buffers.has(params.path)) {
      text = buffers.get(params.path);
    } else {
      try {
        text = readFileSync(params.path, "utf8");
      } catch {
        throw acp.RequestError.resourceNotFound(params.path);
      }
    }
    // `line` counts from 1 and `limit` is a number of lines, as the ACP schema defines them.
    if (params.line != null || params.limit != null) {
      const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
      const first = Math.max((params.line ?? 1) - 1, 0);
      const end = params.limit != null ? first + params.limit : lines.length;
      text = lines.slice(first, end).join("");
    }
    return { content: text };
  });
}
if (capabilities.fs?.writeTextFile) {
  app.onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
    transcript.fs.push({ step: currentStep, method: "fs/write_text_file", path: params.path, content: params.content });
    buffers.set(params.path, params.content);
    return {};
  });
}

if (capabilities.terminal) serveTerminals(app);

// The editor's terminals: a child process per terminal/create, as Zed or CodeCompanion run them.
function serveTerminals(app) {
  const live = new Map();
  let next = 0;
  const get = (params) => {
    const t = live.get(params.terminalId);
    if (!t) throw acp.RequestError.invalidParams(`no terminal ${params.terminalId}`);
    return t;
  };
  const note = (method, params) =>
    transcript.terminals.push({ step: currentStep, at_ms: now(), method, terminalId: params.terminalId ?? null });
  const status = (t) => (t.exit ? { exitCode: t.exit.code, signal: t.exit.signal } : null);
  const killGroup = (t) => {
    if (t.exit) return;
    try {
      process.kill(-t.child.pid, "SIGKILL");
    } catch {
      t.child.kill("SIGKILL");
    }
  };
  app.onRequest(acp.methods.client.terminal.create, ({ params }) => {
    const terminalId = `term-${++next}`;
    note("terminal/create", { terminalId });
    const env = { ...process.env };
    for (const { name, value } of params.env ?? []) env[name] = value;
    const child = spawn(params.command, params.args ?? [], {
      cwd: params.cwd ?? process.cwd(),
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const run = { command: params.command, args: params.args ?? [], cwd: params.cwd ?? null, chunks: [], exit: null };
    transcript.terminal_runs[terminalId] = run;
    const t = { child, output: "", truncated: false, limit: params.outputByteLimit ?? null, exit: null, waiters: [] };
    const take = (chunk) => {
      const text = chunk.toString("utf8");
      run.chunks.push({ at_ms: now(), text });
      t.output += text;
      for (let i = outputWaiters.length - 1; i >= 0; i--) {
        if (t.output.includes(outputWaiters[i].text)) outputWaiters.splice(i, 1)[0].resolve();
      }
      if (t.limit != null && Buffer.byteLength(t.output) > t.limit) {
        t.output = Buffer.from(t.output).subarray(-t.limit).toString("utf8");
        t.truncated = true;
      }
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    child.on("close", (code, signal) => {
      t.exit = { code, signal };
      run.exit = { code, signal, at_ms: now() };
      t.waiters.splice(0).forEach((w) => w());
    });
    child.on("error", (error) => {
      take(Buffer.from(`${error.message}\n`));
      t.exit = { code: 127, signal: null };
      run.exit = { code: 127, signal: null, at_ms: now() };
      t.waiters.splice(0).forEach((w) => w());
    });
    live.set(terminalId, t);
    return { terminalId };
  });
  app.onRequest(acp.methods.client.terminal.output, ({ params }) => {
    note("terminal/output", params);
    const t = get(params);
    return { output: t.output, truncated: t.truncated, exitStatus: status(t) };
  });
  app.onRequest(acp.methods.client.terminal.waitForExit, async ({ params }) => {
    note("terminal/wait_for_exit", params);
    const t = get(params);
    if (!t.exit) await new Promise((resolve) => t.waiters.push(resolve));
    return status(t);
  });
  app.onRequest(acp.methods.client.terminal.kill, ({ params }) => {
    note("terminal/kill", params);
    killGroup(get(params));
    return {};
  });
  app.onRequest(acp.methods.client.terminal.release, ({ params }) => {
    note("terminal/release", params);
    const t = get(params);
    killGroup(t);
    live.delete(params.terminalId);
    return {};
  });
}

// A step that waits too long means the agent is stuck: the run stops there rather than letting
// every later step wait as long again.
class Timeout extends Error {}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Timeout(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// Answers and notifications reach the SDK in wire order, but it hands notifications to their
// handler a few promise turns later than it settles an answer. Waiting for the next turn of the
// event loop lets the updates sent before an answer be recorded under the step they belong to.
const settle = () => new Promise((resolve) => setImmediate(resolve));

function errorRecord(error) {
  if (error instanceof acp.RequestError || (error && typeof error.code === "number")) {
    return { code: error.code, message: error.message, data: error.data ?? null };
  }
  return { code: null, message: String(error?.message ?? error), data: null };
}

// Sends one request and records it; the record is placed when the request is sent, so responses
// are in the order the steps asked.
async function request(ctx, method, params, record = {}) {
  Object.assign(record, { step: currentStep, method, params, sent_ms: now() });
  transcript.responses.push(record);
  try {
    record.result = await withTimeout(ctx.request(method, params), timeouts.step_ms, method);
  } catch (error) {
    record.error = errorRecord(error);
    if (error instanceof Timeout) throw error;
  }
  record.ms = Math.round((now() - record.sent_ms) * 10) / 10;
  await settle();
  return record;
}

let lastSession = null;
let lastNes = null;
let lastSuggestion = null;
const withNes = (params) =>
  JSON.parse(
    JSON.stringify(params ?? {})
      .replaceAll('"$nes"', JSON.stringify(lastNes))
      .replaceAll('"$suggestion"', JSON.stringify(lastSuggestion)),
  );

async function prompt(ctx, step) {
  const sessionId = step.sessionId ?? lastSession;
  cancelledSessions.delete(sessionId);
  const record = { step: currentStep, method: "session/prompt", sent_ms: now() };
  record.params = { sessionId, prompt: [{ type: "text", text: step.text }] };
  transcript.responses.push(record);
  const firstChunk = new Promise((resolve) => chunkWaiters.push({ sessionId, resolve }));
  const answer = ctx.request("session/prompt", record.params).then(
    (result) => {
      record.result = result;
      record.ms = Math.round((now() - record.sent_ms) * 10) / 10;
    },
    (error) => {
      record.error = errorRecord(error);
      record.ms = Math.round((now() - record.sent_ms) * 10) / 10;
    },
  );
  let follow = null;
  const cancel = async () => {
    if (record.ms !== undefined || record.cancel_sent_ms !== undefined) return;
    cancelledSessions.add(sessionId);
    record.cancel_sent_ms = now();
    await ctx.notify("session/cancel", { sessionId });
  };
  if (step.cancel_when_output != null) {
    new Promise((resolve) => outputWaiters.push({ text: step.cancel_when_output, resolve })).then(
      () => void cancel().catch(() => {}),
    );
  }
  if (step.cancel_after_ms != null) {
    setTimeout(() => void cancel().catch(() => {}), step.cancel_after_ms);
  }
  if (step.cancel_after_first_chunk || step.close_stdin_after_first_chunk || step.prompt_while_running != null) {
    await withTimeout(Promise.race([firstChunk, answer]), timeouts.step_ms, "the first agent_message_chunk");
    if (record.ms === undefined && step.prompt_while_running != null) {
      follow = prompt(ctx, { text: step.prompt_while_running, sessionId });
    } else if (record.ms === undefined) {
      if (step.close_stdin_after_first_chunk) {
        record.stdin_closed_ms = now();
        closeStdin();
        return "stop";
      }
      await cancel();
      if (step.prompt_after_cancel != null) {
        follow = prompt(ctx, { text: step.prompt_after_cancel, sessionId });
      }
    }
  }
  await withTimeout(answer, timeouts.step_ms, "session/prompt");
  if (record.cancel_sent_ms !== undefined) {
    record.ms_after_cancel = Math.round((record.sent_ms + record.ms - record.cancel_sent_ms) * 10) / 10;
  }
  if (follow) await follow;
  await settle();
  return "next";
}

async function raw(step) {
  const line = step.line;
  let parsed;
  let waitFor;
  try {
    parsed = JSON.parse(line);
    if (parsed && typeof parsed === "object" && "method" in parsed && "id" in parsed) waitFor = { id: parsed.id };
  } catch {
    waitFor = { id: null };
  }
  const record = { step: currentStep, method: "raw", line, sent_ms: now() };
  transcript.responses.push(record);
  const answered = waitFor
    ? new Promise((resolve) => rawWaiters.push({ id: waitFor.id, resolve }))
    : new Promise((resolve) => setTimeout(() => resolve(null), step.wait_ms ?? 0));
  await new Promise((resolve, reject) => {
    if (stdinClosedAt !== null || exited) {
      reject(new Error("the agent's standard input is closed"));
      return;
    }
    child.stdin.write(`${line}\n`, (error) => (error ? reject(error) : resolve()));
  });
  const message = await withTimeout(answered, timeouts.step_ms, `raw line ${JSON.stringify(line)}`);
  if (message) {
    record.id = message.id;
    if ("result" in message) record.result = message.result;
    if ("error" in message) record.error = message.error;
  }
  record.ms = Math.round((now() - record.sent_ms) * 10) / 10;
  await settle();
}

// Raw requests of the `request` and `prompt_cancel_request` steps: their own ids, answered
// through rawWaiters (the SDK never sees them as its own).
let rawRequests = 0;

function writeLine(message) {
  return new Promise((resolve, reject) => {
    if (stdinClosedAt !== null || exited) {
      reject(new Error("the agent's standard input is closed"));
      return;
    }
    child.stdin.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : resolve()));
  });
}

async function rawRequest(step) {
  const params = { ...(step.params ?? {}) };
  if (params.sessionId === "$last") params.sessionId = lastSession;
  const id = `req-${++rawRequests}`;
  const record = { step: currentStep, method: step.method, params, sent_ms: now() };
  transcript.responses.push(record);
  const answered = new Promise((resolve) => rawWaiters.push({ id, resolve }));
  await writeLine({ jsonrpc: "2.0", id, method: step.method, params });
  const message = await withTimeout(answered, timeouts.step_ms, step.method);
  if ("result" in message) record.result = message.result;
  if ("error" in message) record.error = message.error;
  record.ms = Math.round((now() - record.sent_ms) * 10) / 10;
  if (step.method === "session/resume" && record.result) lastSession = params.sessionId;
  await settle();
}

async function promptCancelRequest(step) {
  const sessionId = step.sessionId ?? lastSession;
  const id = `req-${++rawRequests}`;
  const params = { sessionId, prompt: [{ type: "text", text: step.text }] };
  const record = { step: currentStep, method: "session/prompt", params, sent_ms: now() };
  transcript.responses.push(record);
  const firstChunk = new Promise((resolve) => chunkWaiters.push({ sessionId, resolve }));
  const answered = new Promise((resolve) => rawWaiters.push({ id, resolve }));
  await writeLine({ jsonrpc: "2.0", id, method: "session/prompt", params });
  await withTimeout(Promise.race([firstChunk, answered]), timeouts.step_ms, "the first agent_message_chunk");
  record.cancel_sent_ms = now();
  await writeLine({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: id } });
  const message = await withTimeout(answered, timeouts.step_ms, "session/prompt after $/cancel_request");
  if ("result" in message) record.result = message.result;
  if ("error" in message) record.error = message.error;
  record.ms = Math.round((now() - record.sent_ms) * 10) / 10;
  record.ms_after_cancel = Math.round((now() - record.cancel_sent_ms) * 10) / 10;
  await settle();
}

async function play(ctx, step) {
  switch (step.do) {
    case "initialize":
      await request(ctx, "initialize", {
        protocolVersion: step.protocolVersion ?? acp.PROTOCOL_VERSION,
        clientCapabilities: capabilities,
        clientInfo: { name: "pilotfish-scripted-editor", version: "1.0.0" },
      });
      return "next";
    case "new_session": {
      const record = await request(ctx, "session/new", { cwd: step.cwd, mcpServers: step.mcpServers ?? [] });
      if (record.result?.sessionId) lastSession = record.result.sessionId;
      return "next";
    }
    case "load_session": {
      const params = { sessionId: step.sessionId ?? lastSession, cwd: step.cwd, mcpServers: step.mcpServers ?? [] };
      const record = await request(ctx, "session/load", params);
      if (!record.error) lastSession = params.sessionId;
      return "next";
    }
    case "prompt":
      return prompt(ctx, step);
    case "raw":
      await raw(step);
      return "next";
    case "request":
      await rawRequest(step);
      return "next";
    case "prompt_cancel_request":
      await promptCancelRequest(step);
      return "next";
    case "wait_for_update": {
      const seen = () =>
        transcript.updates.some(
          (u) => u.update.sessionUpdate === step.kind && JSON.stringify(u.update).includes(step.text),
        );
      const limit = now() + (step.ms ?? timeouts.step_ms);
      while (!seen() && now() < limit) await new Promise((resolve) => setTimeout(resolve, 50));
      if (!seen()) throw new Error(`no ${step.kind} update with ${JSON.stringify(step.text)} came`);
      return "next";
    }
    case "write_file":
      mkdirSync(dirname(step.path), { recursive: true });
      writeFileSync(step.path, step.text);
      return "next";
    case "sdk_request": {
      const record = await request(ctx, step.method, withNes(step.params));
      if (step.method === "nes/start" && record.result?.sessionId) lastNes = record.result.sessionId;
      if (step.method === "nes/suggest" && record.result?.suggestions?.[0]) lastSuggestion = record.result.suggestions[0].id;
      return "next";
    }
    case "sdk_notify": {
      const params = withNes(step.params);
      transcript.responses.push({ step: currentStep, method: step.method, params, notification: true, sent_ms: now() });
      await ctx.notify(step.method, params);
      return "next";
    }
    case "sleep":
      await new Promise((resolve) => setTimeout(resolve, step.ms ?? 0));
      return "next";
    case "close_stdin":
      return "stop";
    default:
      throw new Error(`unknown step ${JSON.stringify(step.do)}`);
  }
}

async function playAll(ctx) {
  for (const [i, step] of (scenario.steps ?? []).entries()) {
    currentStep = i;
    if (exited) {
      transcript.errors.push(`the agent exited before step ${i} (${step.do})`);
      return;
    }
    try {
      if ((await play(ctx, step)) === "stop") return;
    } catch (error) {
      transcript.errors.push(`step ${i} (${step.do}): ${error.message}`);
      return;
    }
  }
}

let printed = false;
function finish() {
  if (printed) return;
  printed = true;
  transcript.buffers = Object.fromEntries(buffers);
  transcript.stderr = stderr;
  // An update on the wire that the SDK did not hand on was either refused by its schema (the
  // SDK then says so through console.error) or still queued when the connection closed (the
  // scripted editor may close stdin right after an answer, before the SDK reads what follows).
  // Only the first is the agent's fault.
  if (wireUpdates !== acceptedUpdates) {
    const n = wireUpdates - acceptedUpdates;
    if (transcript.sdk_log.length > 0) {
      transcript.errors.push(
        `${n} session/update notification(s) failed the ACP v1 schema and were dropped by the SDK: ${transcript.sdk_log.join("; ")}`,
      );
    } else {
      transcript.undelivered_updates = n;
    }
  }
  process.stdout.write(`${JSON.stringify(transcript)}\n`, () => process.exit(0));
}

// The watchdog: whatever goes wrong, the agent is killed and the transcript printed.
const watchdog = setTimeout(() => {
  transcript.errors.push(`the run took longer than ${timeouts.run_ms} ms; the agent was killed`);
  child.kill("SIGKILL");
  transcript.exit = { code: null, signal: "SIGKILL", ms_after_stdin_closed: null, killed: true };
  finish();
}, timeouts.run_ms);

let steps;
try {
  await app.connectWith(acp.ndJsonStream(toAgent, fromAgent), (ctx) => {
    steps = playAll(ctx);
    return steps;
  });
} catch (error) {
  transcript.errors.push(`the connection closed: ${error?.message ?? error}`);
}
await steps;
currentStep = -1;
// Messages that arrived with the last answer are dispatched by the SDK on later turns of the
// event loop; they are given that time before the agent is told goodbye, as an editor that
// goes on running would.
await new Promise((resolve) => setTimeout(resolve, 50));

// Closing standard input is how an editor says goodbye; the agent must then end by itself.
closeStdin();
let killed = false;
await Promise.race([exitedPromise, new Promise((resolve) => setTimeout(resolve, timeouts.exit_ms))]);
if (!exited) {
  // Reported in exit.killed rather than in errors, so that a test of something else does not
  // fail for it.
  killed = true;
  child.kill("SIGKILL");
  await exitedPromise;
}
transcript.exit = {
  code: exited.code,
  signal: exited.signal,
  ms_after_stdin_closed: exited.at_ms >= stdinClosedAt ? Math.round((exited.at_ms - stdinClosedAt) * 10) / 10 : null,
  before_stdin_closed: exited.at_ms < stdinClosedAt,
  killed,
};
clearTimeout(watchdog);
// The same for what came just before the agent exited.
for (let waited = 0; acceptedUpdates < wireUpdates && waited < 500; waited += 10) {
  await new Promise((resolve) => setTimeout(resolve, 10));
}
finish();
