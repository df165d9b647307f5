// A client of the Agent Client Protocol over a child's standard input and output: one
// JSON-RPC 2.0 message per line, requests both ways. It knows the wire, not the meaning: the
// view decides what each update and each request of the agent does.
import { ChildProcess, spawn } from 'node:child_process';

/** A JSON-RPC error an agent answered with, or one this side raises for a request it serves. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** What the agent may ask of the client: a method's handler returns its result or throws. */
export type RequestHandler = (method: string, params: any) => Promise<unknown>;
export type NotificationHandler = (method: string, params: any) => void;

interface Pending {
  resolve: (v: any) => void;
  reject: (e: Error) => void;
}

/** One `pilotfish acp` process and the conversation on its pipes. */
export class AcpConnection {
  private child: ChildProcess;
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private buffer = '';
  private exited = false;

  constructor(
    command: string,
    args: string[],
    cwd: string | undefined,
    private onRequest: RequestHandler,
    private onNotification: NotificationHandler,
    private log: (line: string) => void,
    onExit: (why: string) => void,
  ) {
    this.child = spawn(command, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (d: string) => this.read(d));
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (d: string) => d.split('\n').filter(Boolean).forEach((l) => log(`acp: ${l}`)));
    const end = (why: string) => {
      if (this.exited) return;
      this.exited = true;
      for (const p of this.pending.values()) p.reject(new Error(why));
      this.pending.clear();
      onExit(why);
    };
    this.child.on('error', (e) => end(`could not start ${command}: ${e.message}`));
    this.child.on('exit', (code, signal) => end(`pilotfish acp exited (${signal ?? `status ${code}`})`));
  }

  /** Sends a request and waits for its answer; an error answer rejects with an `RpcError`. */
  request<T>(method: string, params: unknown): Promise<T> {
    if (this.exited) return Promise.reject(new Error('pilotfish acp is not running'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.write({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    if (!this.exited) this.write({ jsonrpc: '2.0', method, params });
  }

  /** Closes the agent's input (it then ends its sessions and exits) and kills it if it lingers. */
  dispose(): void {
    if (this.exited) return;
    this.child.stdin!.end();
    const child = this.child;
    setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill();
    }, 5000).unref();
  }

  private write(message: unknown): void {
    this.child.stdin!.write(JSON.stringify(message) + '\n');
  }

  private read(data: string): void {
    this.buffer += data;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl).trim();
      this.buffer = this.buffer.slice(nl + 1);
      if (!line) continue;
      let message: any;
      try {
        message = JSON.parse(line);
      } catch {
        this.log(`acp: not JSON on the agent's output: ${line.slice(0, 200)}`);
        continue;
      }
      this.dispatch(message);
    }
  }

  private dispatch(m: any): void {
    if (m.method === undefined) {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.error) p.reject(new RpcError(m.error.code, m.error.message));
      else p.resolve(m.result);
    } else if (m.id === undefined) {
      this.onNotification(m.method, m.params);
    } else {
      this.onRequest(m.method, m.params).then(
        (result) => this.write({ jsonrpc: '2.0', id: m.id, result: result ?? null }),
        (e) => {
          const code = e instanceof RpcError ? e.code : -32603;
          this.write({ jsonrpc: '2.0', id: m.id, error: { code, message: e instanceof Error ? e.message : String(e) } });
        },
      );
    }
  }
}
