// What the status bar item says: one short text for each state the server can be in, and a
// tooltip with the whole story. Kept apart from VS Code's API so the wording is in one place.

export type ServerState =
  | { kind: 'starting' }
  | { kind: 'ready'; busy: boolean; message?: string }
  | { kind: 'error'; message: string }
  | { kind: 'stopped'; message: string }
  | { kind: 'off' };

export interface StatusText {
  text: string;
  tooltip: string;
}

/** The endpoint in a connection failure ("could not connect to URL: ..."), when it is one. */
export function unreachableEndpoint(message: string): string | undefined {
  const m = /could not connect to (\S+?):? is the server running\?/.exec(message);
  if (!m) return undefined;
  try {
    const url = new URL(m[1]);
    return `${url.protocol}//${url.host}`;
  } catch {
    return m[1];
  }
}

export function describe(state: ServerState): StatusText {
  const more = 'Click to open the server\'s log.';
  switch (state.kind) {
    case 'starting':
      return { text: '$(loading~spin) pilotfish: starting', tooltip: `Starting pilotfish lsp. ${more}` };
    case 'ready':
      return state.busy
        ? { text: '$(sync~spin) pilotfish: asking the model', tooltip: `A completion is on its way. ${more}` }
        : { text: '$(check) pilotfish: ready', tooltip: `pilotfish is ready. ${more}` };
    case 'error': {
      const endpoint = unreachableEndpoint(state.message);
      const text = endpoint
        ? `$(debug-disconnect) pilotfish: no model server at ${endpoint}`
        : `$(error) pilotfish: ${shorten(state.message, 60)}`;
      return { text, tooltip: `${state.message}\n\n${more}` };
    }
    case 'stopped':
      return {
        text: '$(circle-slash) pilotfish: server stopped',
        tooltip: `${state.message}\n\nRun "pilotfish: Restart the Language Server". ${more}`,
      };
    case 'off':
      return {
        text: '$(circle-outline) pilotfish: off',
        tooltip: 'Completions are off. Run "pilotfish: Toggle Completions" to turn them on.',
      };
  }
}

function shorten(text: string, max: number): string {
  const line = text.split('\n')[0];
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}
