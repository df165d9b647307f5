// The chat view: a webview view in pilotfish's activity bar container. It owns the current
// `ChatSession` (started when the view is first shown or a prompt is sent), passes the user's
// messages from the webview to it and its events back, and draws the page with a strict
// content security policy: its own script and style, nothing remote.
import * as crypto from 'node:crypto';
import * as vscode from 'vscode';
import * as inspector from '../inspector';
import { AgentCommand, ChatSession, ViewEvent } from './session';

export const VIEW_ID = 'pilotfish.chat';

export class ChatView implements vscode.WebviewViewProvider {
  private view: vscode.WebviewView | undefined;
  private session: ChatSession | undefined;

  constructor(
    private extensionUri: vscode.Uri,
    private agent: () => Promise<AgentCommand>,
    private log: vscode.LogOutputChannel,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    view.webview.options = { enableScripts: true, localResourceRoots: [media] };
    view.webview.html = page(view.webview, media);
    view.webview.onDidReceiveMessage((m) => this.received(m));
    view.onDidDispose(() => {
      if (this.view === view) this.view = undefined;
    });
  }

  /** Shows the view (the command `pilotfish: Open Chat`). */
  async open(): Promise<void> {
    await vscode.commands.executeCommand(`${VIEW_ID}.focus`);
  }

  /** Shows the agent's last request in the inspector (`pilotfish: Inspect the Agent's Last Request`). */
  async inspect(): Promise<void> {
    if (!this.session) {
      void vscode.window.showWarningMessage('pilotfish: open the chat and send a prompt first.');
      return;
    }
    try {
      inspector.show(await this.session.lastRequest());
    } catch (e) {
      void vscode.window.showWarningMessage(`pilotfish: ${e instanceof Error ? e.message : e}`);
    }
  }

  /** A new session in a new agent process; the old one's history is cleared. */
  async newChat(): Promise<void> {
    this.session?.dispose();
    this.session = undefined;
    this.post({ type: 'clear' });
    this.current();
    await this.open();
  }

  /** After `pilotfish: Restart`: a new agent process, which takes the settings as they are now. */
  restart(): void {
    if (!this.session) return;
    this.session.dispose();
    this.session = undefined;
    this.post({ type: 'clear' });
    if (this.view) this.current();
  }

  dispose(): void {
    this.session?.dispose();
    this.session = undefined;
  }

  private current(): ChatSession {
    if (!this.session) {
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
      const session: ChatSession = new ChatSession(
        this.agent,
        folder,
        (e) => {
          if (this.session === session) this.post(e);
        },
        this.log,
      );
      this.session = session;
      session.start();
    }
    return this.session;
  }

  private post(e: ViewEvent): void {
    void this.view?.webview.postMessage(e);
  }

  private received(m: any): void {
    switch (m?.type) {
      case 'ready': {
        // A new webview (first shown, or shown again): the session's history from the start.
        const s = this.current();
        this.post({ type: 'clear' });
        for (const e of s.replay()) this.post(e);
        break;
      }
      case 'send':
        if (typeof m.text === 'string' && m.text.trim()) void this.current().send(m.text);
        break;
      case 'stop':
        void this.session?.stop();
        break;
      case 'permission':
        this.session?.answer(Number(m.id), String(m.optionId));
        break;
      case 'keep':
      case 'undo':
        void this.session?.settle(String(m.toolCallId), m.type === 'keep');
        break;
      case 'mode':
        void this.session?.setMode(String(m.modeId));
        break;
      case 'newChat':
        void this.newChat();
        break;
    }
  }
}

/** The view's HTML: a nonce-checked script and the stylesheet, both from `media/`. */
function page(webview: vscode.Webview, media: vscode.Uri): string {
  const nonce = crypto.randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(media, 'chat.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(media, 'chat.css'));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
    `img-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${style}">
<title>pilotfish chat</title>
</head>
<body>
<header class="bar">
  <label>Mode <select id="mode" aria-label="Mode"></select></label>
  <button id="new" type="button">New Chat</button>
</header>
<main id="log" role="log" aria-live="polite" aria-label="pilotfish chat"></main>
<footer class="composer">
  <div id="commands" role="listbox" aria-label="Prompt files" hidden></div>
  <textarea id="input" rows="3" aria-label="Ask pilotfish" placeholder="Ask pilotfish (Enter sends, Shift+Enter a new line, / for prompt files)"></textarea>
  <div class="actions"><button id="send" type="button">Send</button><button id="stop" type="button" disabled>Stop</button></div>
</footer>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}
