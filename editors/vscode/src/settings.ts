// What the extension passes to `pilotfish lsp`: the command line, and the settings object
// whose keys are those of pilotfish's configuration file (`[backend]`, `[completion]`, `[chat]`).

/** The part of VS Code's configuration the extension reads (`pilotfish.*`). */
export interface ExtensionSettings {
  enable: boolean;
  path: string;
  backend: string;
  endpoint: string;
  model: string;
  strategy: string;
  gguf: string;
  args: string[];
  /** `pilotfish.nextEdit.enable`: next edit suggestions after edits. */
  nextEdit: boolean;
  /** `pilotfish.chat.*`: the model next edits ask (as `pilotfish chat` takes it). */
  chat: { backend: string; endpoint: string; model: string };
}

/** The part of `vscode.WorkspaceConfiguration` the extension reads. */
export interface Configuration {
  get<T>(key: string): T | undefined;
  inspect?<T>(
    key: string,
  ): { globalValue?: T; defaultValue?: T; workspaceValue?: T; workspaceFolderValue?: T } | undefined;
}

/**
 * The settings that name a program, its arguments or a model file. They are `machine` scope in
 * package.json, so VS Code takes them only from the user's own settings; they are also read
 * here from the user's settings alone, so that a workspace's `.vscode/settings.json` can never
 * choose what the extension runs.
 */
export const USER_ONLY = ['path', 'gguf', 'args'];

/** Reads `pilotfish.*` from anything shaped like `vscode.WorkspaceConfiguration`. */
export function readSettings(config: Configuration): ExtensionSettings {
  const get = <T>(key: string): T | undefined => {
    if (USER_ONLY.includes(key) && config.inspect) {
      // The user's own value (or the default), never the value in force: while VS Code starts,
      // before it knows these are machine settings, the value in force can be the workspace's.
      const seen = config.inspect<T>(key);
      return seen?.globalValue ?? seen?.defaultValue;
    }
    return config.get<T>(key);
  };
  const text = (key: string) => (get<string>(key) ?? '').trim();
  const args = get<string[]>('args');
  return {
    enable: config.get<boolean>('enable') ?? true,
    path: text('path'),
    backend: text('backend'),
    endpoint: text('endpoint'),
    model: text('model'),
    strategy: text('strategy'),
    gguf: text('gguf'),
    args: Array.isArray(args) ? args.filter((a) => typeof a === 'string') : [],
    nextEdit: config.get<boolean>('nextEdit.enable') ?? true,
    chat: { backend: text('chat.backend'), endpoint: text('chat.endpoint'), model: text('chat.model') },
  };
}

/** The server's command line: the binary from `pilotfish.path`, else `pilotfish` on PATH. */
export function serverCommand(s: ExtensionSettings): { command: string; args: string[] } {
  return { command: s.path || 'pilotfish', args: ['lsp', ...s.args] };
}

/**
 * The settings object the server takes (as `initializationOptions`, in
 * `workspace/didChangeConfiguration` and as the answer to `workspace/configuration`). An empty
 * setting is left out, so the configuration file's value, or pilotfish's default, holds.
 */
export function serverSettings(s: ExtensionSettings): Record<string, Record<string, string>> {
  const backend: Record<string, string> = {};
  if (s.backend) backend.kind = s.backend;
  if (s.endpoint) backend.endpoint = s.endpoint;
  if (s.model) backend.model = s.model;
  if (s.gguf) backend.gguf = s.gguf;
  const completion: Record<string, string> = {};
  if (s.strategy) completion.strategy = s.strategy;
  // Empty: next edits ask `[chat]`'s server, else the completions' (the managed one too).
  const chat: Record<string, string> = {};
  if (s.chat.backend) chat.kind = s.chat.backend;
  if (s.chat.endpoint) chat.endpoint = s.chat.endpoint;
  if (s.chat.model) chat.model = s.chat.model;
  return { backend, completion, chat };
}

/** Whether a change of settings needs a new server process rather than new settings. */
export function needsRestart(before: ExtensionSettings, after: ExtensionSettings): boolean {
  return before.path !== after.path || JSON.stringify(before.args) !== JSON.stringify(after.args);
}
