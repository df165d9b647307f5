// pilotfish for VS Code: starts `pilotfish lsp`, shows its inline completions as ghost text,
// says in the status bar what the server is doing, and opens the prompt inspector and the chat
// view (`pilotfish acp`, src/chat).
import * as vscode from 'vscode';
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  TransportKind,
} from 'vscode-languageclient/node';
import * as inspector from './inspector';
import { NextEdits } from './nextEdit';
import { readChatSettings, agentCommand } from './chat/settings';
import type { AgentCommand } from './chat/session';
import { ChatView, VIEW_ID } from './chat/view';
import { describe, ServerState } from './status';
import { ExtensionSettings, needsRestart, readSettings, serverCommand, serverSettings } from './settings';

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;
let statusItem: vscode.StatusBarItem;
let settings: ExtensionSettings;
let state: ServerState = { kind: 'starting' };
let nextEdits: NextEdits | undefined;
let chat: ChatView | undefined;

function current(): ExtensionSettings {
  return readSettings(vscode.workspace.getConfiguration('pilotfish'));
}

function setState(next: ServerState): void {
  state = next;
  const shown = settings.enable || next.kind === 'stopped' ? next : { kind: 'off' as const };
  const { text, tooltip } = describe(shown);
  statusItem.text = text;
  statusItem.tooltip = tooltip;
  statusItem.show();
}

function newClient(): LanguageClient {
  const { command, args } = serverCommand(settings);
  const serverOptions: ServerOptions = { command, args, transport: TransportKind.stdio };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
    outputChannel: output,
    initializationOptions: serverSettings(settings),
    middleware: {
      provideInlineCompletionItems: (document, position, context, token, next) =>
        settings.enable ? next(document, position, context, token) : undefined,
      workspace: {
        // The server asks for section `pilotfish`; it wants the configuration file's shape,
        // not VS Code's flat settings.
        configuration: (params, token, next) =>
          params.items.map((item) =>
            item.section === 'pilotfish' ? serverSettings(settings) : null,
          ),
      },
    },
    // A server that exits is not restarted behind the user's back: the status bar says so
    // and the restart command is one click away.
    errorHandler: {
      error: () => ({ action: 1 /* Continue */ }),
      closed: () => ({ action: 1 /* DoNotRestart */ }),
    },
  };
  const c = new LanguageClient('pilotfish', 'pilotfish', serverOptions, clientOptions);
  c.onDidChangeState((e) => {
    if (e.newState === State.Running) {
      setState({ kind: 'ready', busy: false });
    } else if (e.newState === State.Stopped && client === c) {
      setState({ kind: 'stopped', message: `pilotfish lsp (${command}) is not running.` });
    }
  });
  return c;
}

async function start(): Promise<void> {
  setState({ kind: 'starting' });
  const c = newClient();
  client = c;
  try {
    await c.start();
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    output.appendLine(`pilotfish: the server did not start: ${why}`);
    if (client === c) {
      setState({
        kind: 'stopped',
        message: `Could not start ${serverCommand(settings).command}: ${why}. Set pilotfish.path to the pilotfish binary.`,
      });
    }
    return;
  }
  // Copilot's status notification: busy while a completion is asked, an error message when
  // the last one failed.
  c.onNotification('didChangeStatus', (p: { kind?: string; message?: string; busy?: boolean }) => {
    if (client !== c) return;
    if (p.kind === 'Error' && p.message) {
      setState({ kind: 'error', message: p.message });
    } else {
      setState({ kind: 'ready', busy: Boolean(p.busy) });
    }
  });
}

async function stop(): Promise<void> {
  const c = client;
  client = undefined;
  if (c && c.state !== State.Stopped) {
    try {
      await c.stop(2000);
    } catch (e) {
      output.appendLine(`pilotfish: stopping the server: ${e instanceof Error ? e.message : e}`);
    }
  }
}

async function restart(): Promise<void> {
  await stop();
  // The new language server first (it may start the managed model server the chat shares),
  // then the chat's new agent, which waits for it.
  const started = start();
  chat?.restart();
  await started;
}

async function inspect(atCursor: boolean): Promise<void> {
  if (!client || client.state !== State.Running) {
    void vscode.window.showWarningMessage('pilotfish: the language server is not running.');
    return;
  }
  const params: Record<string, unknown> = {};
  if (atCursor) {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showWarningMessage('pilotfish: open a file and put the cursor where a completion would be.');
      return;
    }
    params.textDocument = { uri: editor.document.uri.toString() };
    params.position = client.code2ProtocolConverter.asPosition(editor.selection.active);
  }
  try {
    inspector.show(await client.sendRequest<inspector.InspectResult>('pilotfish/inspect', params));
  } catch (e) {
    void vscode.window.showWarningMessage(`pilotfish: ${e instanceof Error ? e.message : e}`);
  }
}

/** Whether `c` runs, or comes to run within `ms` milliseconds. */
function running(c: LanguageClient, ms: number): Promise<boolean> {
  if (c.state === State.Running) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      sub.dispose();
      clearTimeout(timer);
      resolve(ok);
    };
    const sub = c.onDidChangeState((e) => {
      if (e.newState === State.Running) done(true);
      else if (e.newState === State.Stopped) done(false);
    });
    const timer = setTimeout(() => done(false), ms);
  });
}

/** The chat's agent command line; the managed model server's address comes from the
 * language server, which started it (`pilotfish/modelServer`). */
async function chatAgent(): Promise<AgentCommand> {
  const chatSettings = readChatSettings(vscode.workspace.getConfiguration('pilotfish'));
  let managed: string | undefined;
  if (!chatSettings.endpoint && settings.gguf && client) {
    try {
      // The language server may still be loading the model: wait for it to run.
      const c = client;
      if (!(await running(c, 150_000))) throw new Error('the language server is not running');
      const r = await c.sendRequest<{ endpoint?: string | null }>('pilotfish/modelServer', {});
      managed = r.endpoint ?? undefined;
    } catch (e) {
      output.warn(`pilotfish: no managed model server for the chat: ${e instanceof Error ? e.message : e}`);
    }
  }
  return agentCommand(settings, chatSettings, managed);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('pilotfish', { log: true });
  statusItem = vscode.window.createStatusBarItem('pilotfish.status', vscode.StatusBarAlignment.Right, 100);
  statusItem.name = 'pilotfish';
  statusItem.command = 'pilotfish.showLog';
  settings = current();
  nextEdits = new NextEdits(context.extensionUri, () => client, () => settings.nextEdit, output);
  const view = new ChatView(context.extensionUri, chatAgent, output);
  chat = view;
  context.subscriptions.push(
    nextEdits,
    view,
    vscode.window.registerWebviewViewProvider(VIEW_ID, view),
    vscode.commands.registerCommand('pilotfish.openChat', () => view.open()),
    vscode.commands.registerCommand('pilotfish.newChat', () => view.newChat()),
    vscode.commands.registerCommand('pilotfish.inspectChat', () => view.inspect()),
    output,
    statusItem,
    vscode.commands.registerCommand('pilotfish.showLog', () => output.show(true)),
    vscode.commands.registerCommand('pilotfish.restart', restart),
    vscode.commands.registerCommand('pilotfish.toggle', async () => {
      const config = vscode.workspace.getConfiguration('pilotfish');
      await config.update('enable', !settings.enable, vscode.ConfigurationTarget.Global);
    }),
    vscode.commands.registerCommand('pilotfish.inspect', () => inspect(false)),
    vscode.commands.registerCommand('pilotfish.inspectCursor', () => inspect(true)),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (!e.affectsConfiguration('pilotfish')) return;
      // The chat's agent takes its model settings when it starts: a new one for new settings.
      if (e.affectsConfiguration('pilotfish.chat')) chat?.restart();
      const before = settings;
      settings = current();
      if (needsRestart(before, settings)) {
        await restart();
        return;
      }
      setState(state);
      nextEdits?.settingsChanged();
      if (client?.state === State.Running) {
        await client.sendNotification('workspace/didChangeConfiguration', {
          settings: { pilotfish: serverSettings(settings) },
        });
      }
    }),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  chat?.dispose();
  await stop();
}
