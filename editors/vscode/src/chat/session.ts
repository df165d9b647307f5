// One chat: a `pilotfish acp` process, its session, and the events the view shows. It turns
// the agent's updates and requests into events for the webview, keeps every event so that a
// view shown again (or opened late) replays the session's history, and turns the user's
// clicks into ACP messages.
import * as vscode from 'vscode';
import { AcpConnection, RpcError } from './acp';
import * as files from './files';

/** What the webview is told; it draws the session from these events alone. */
export type ViewEvent = { type: string; [key: string]: unknown };

/** A diff block of a finished edit, kept so that its Undo can put the old text back. */
interface Diff {
  path: string;
  oldText: string | null;
  newText: string;
}

/** How to start the agent. */
export interface AgentCommand {
  command: string;
  args: string[];
}

const FS_CAPABILITIES = { fs: { readTextFile: true, writeTextFile: true }, terminal: false };

export class ChatSession {
  /** The agent's process, once its command line is known (see `open`). */
  private acp: AcpConnection | undefined;
  private sessionId: Promise<string> = Promise.reject(new Error('the chat has not started'));
  private history: ViewEvent[] = [];
  private diffs = new Map<string, Diff[]>();
  private permissions = new Map<number, (optionId: string | null) => void>();
  private nextPermission = 1;
  private running = false;
  private disposed = false;

  constructor(
    private agent: () => Promise<AgentCommand>,
    private folder: string | undefined,
    private post: (e: ViewEvent) => void,
    private log: vscode.LogOutputChannel,
  ) {
    this.sessionId.catch(() => {});
  }

  /** Starts the agent and opens the ACP session; its events start to flow. */
  start(): void {
    this.sessionId = this.open();
    this.sessionId.catch((e) => this.emit({ type: 'error', message: `The agent did not start: ${describe(e)}` }));
  }

  /** Every event so far, for a webview that was (re)created. */
  replay(): ViewEvent[] {
    return this.history;
  }

  dispose(): void {
    this.disposed = true;
    for (const answer of this.permissions.values()) answer(null);
    this.acp?.dispose();
  }

  /** Runs one prompt; its answer, tool calls and end arrive as events. */
  async send(text: string): Promise<void> {
    if (this.running) {
      this.emit({ type: 'error', message: 'A prompt is running: wait for it or press Stop.' });
      return;
    }
    this.running = true;
    this.emit({ type: 'user', text });
    this.emit({ type: 'turn', running: true });
    try {
      const sessionId = await this.sessionId;
      const r = await this.connection().request<{ stopReason: string }>('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text }],
      });
      this.emit({ type: 'end', stopReason: r.stopReason });
    } catch (e) {
      this.emit({ type: 'error', message: describe(e) });
    } finally {
      this.running = false;
      this.emit({ type: 'turn', running: false });
    }
  }

  async stop(): Promise<void> {
    // An open question is answered `cancelled`, as ACP asks of a client that cancels.
    for (const [id, answer] of this.permissions) {
      answer(null);
      this.emit({ type: 'permissionDone', id, optionId: null });
    }
    this.permissions.clear();
    const sessionId = await this.sessionId;
    this.connection().notify('session/cancel', { sessionId });
  }

  /** The last request the agent sent to the model, as the inspector's page (`_pilotfish/lastRequest`). */
  async lastRequest(): Promise<{ title: string; html: string }> {
    const sessionId = await this.sessionId;
    return this.connection().request('_pilotfish/lastRequest', { sessionId });
  }

  async setMode(modeId: string): Promise<void> {
    try {
      const sessionId = await this.sessionId;
      await this.connection().request('session/set_mode', { sessionId, modeId });
      this.emit({ type: 'mode', modeId });
    } catch (e) {
      this.emit({ type: 'error', message: `Could not switch to ${modeId}: ${describe(e)}` });
    }
  }

  answer(id: number, optionId: string): void {
    const answer = this.permissions.get(id);
    if (!answer) return;
    this.permissions.delete(id);
    answer(optionId);
    this.emit({ type: 'permissionDone', id, optionId });
  }

  /** Keep or Undo on an edit's diff: Undo puts each file back as it was before the edit. */
  async settle(toolCallId: string, keep: boolean): Promise<void> {
    const diffs = this.diffs.get(toolCallId);
    if (!diffs) return;
    this.diffs.delete(toolCallId);
    try {
      if (!keep) for (const d of [...diffs].reverse()) await files.undo(d.path, d.oldText);
      this.emit({ type: 'settled', toolCallId, kept: keep });
    } catch (e) {
      this.diffs.set(toolCallId, diffs);
      this.emit({ type: 'error', message: `Could not undo the edit: ${describe(e)}` });
    }
  }

  /** The agent's connection; only called once the session is open, so it exists. */
  private connection(): AcpConnection {
    if (!this.acp) throw new Error('pilotfish acp is not running');
    return this.acp;
  }

  private emit(e: ViewEvent): void {
    this.history.push(e);
    this.post(e);
  }

  private async open(): Promise<string> {
    this.emit({ type: 'status', text: 'Starting pilotfish acp…' });
    const agent = await this.agent();
    if (this.disposed) throw new Error('the chat was closed');
    this.log.info(`chat: starting ${agent.command} ${agent.args.join(' ')}`);
    const acp = new AcpConnection(
      agent.command,
      agent.args,
      this.folder,
      (m, p) => this.serve(m, p),
      (m, p) => this.notified(m, p),
      (l) => this.log.info(l),
      (why) => {
        if (!this.disposed) this.emit({ type: 'exited', message: why });
      },
    );
    this.acp = acp;
    await acp.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: FS_CAPABILITIES,
      clientInfo: { name: 'pilotfish-vscode', title: 'pilotfish for VS Code', version: '0.1.0' },
    });
    if (!this.folder) throw new Error('open a folder first: the agent works in a workspace folder');
    const r = await acp.request<{ sessionId: string; modes?: any }>('session/new', {
      cwd: this.folder,
      mcpServers: [],
    });
    this.emit({ type: 'ready', modes: r.modes ?? null, folder: this.folder });
    return r.sessionId;
  }

  private notified(method: string, params: any): void {
    if (method !== 'session/update') return;
    const u = params?.update ?? {};
    switch (u.sessionUpdate) {
      case 'agent_message_chunk':
        if (u.content?.type === 'text') this.emit({ type: 'chunk', text: u.content.text });
        break;
      case 'tool_call':
      case 'tool_call_update':
        this.toolCall(u);
        break;
      case 'available_commands_update':
        this.emit({ type: 'commands', commands: u.availableCommands ?? [] });
        break;
      case 'current_mode_update':
        this.emit({ type: 'mode', modeId: u.currentModeId });
        break;
    }
  }

  private toolCall(u: any): void {
    const diffs: Diff[] = (u.content ?? [])
      .filter((c: any) => c?.type === 'diff')
      .map((c: any) => ({ path: c.path, oldText: c.oldText ?? null, newText: c.newText }));
    if (diffs.length && u.status === 'completed') this.diffs.set(u.toolCallId, diffs);
    this.emit({ type: 'tool', update: u });
  }

  private serve(method: string, params: any): Promise<unknown> {
    switch (method) {
      case 'fs/read_text_file':
        return files.read(params);
      case 'fs/write_text_file':
        return files.write(params.path, params.content);
      case 'session/request_permission':
        return this.askPermission(params);
      default:
        return Promise.reject(new RpcError(-32601, `${method} is not offered by this client`));
    }
  }

  private askPermission(params: any): Promise<unknown> {
    const id = this.nextPermission++;
    this.emit({ type: 'permission', id, toolCall: params.toolCall ?? {}, options: params.options ?? [] });
    return new Promise((resolve) => {
      this.permissions.set(id, (optionId) =>
        resolve({
          outcome: optionId === null ? { outcome: 'cancelled' } : { outcome: 'selected', optionId },
        }),
      );
    });
  }
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
