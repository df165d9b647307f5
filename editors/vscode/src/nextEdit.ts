// Next edit suggestions: after each edit, the language server's `textDocument/copilotInlineEdit`
// is asked (debounced; a newer edit cancels the request in flight) for the edit the user will
// make next. It is drawn with decorations (the replaced text marked, the new text beside or
// below it, a gutter icon and a label when it is away from the cursor); Tab goes to it and Tab
// again applies it as one undoable edit, Escape turns it down. The server hears of each:
// `textDocument/didShowInlineEdit`, the edit's command when accepted, and
// `textDocument/didRejectInlineEdit`.
import * as vscode from 'vscode';
import { LanguageClient, State } from 'vscode-languageclient/node';
import { isAway, label, place, Suggestion } from './nextEdit/view';

/** The documents the language client syncs (its document selector). */
const SCHEMES = ['file', 'untitled'];

/** How long after an edit the suggestion is asked for. */
const DEBOUNCE_MS = 75;

/** A suggestion as the server sends it (Copilot's shape). */
interface Item extends Suggestion {
  textDocument: { uri: string; version: number };
  command?: { title: string; command: string; arguments?: unknown[] };
}

/** The suggestion on screen. */
interface Shown {
  editor: vscode.TextEditor;
  version: number;
  item: Item;
  range: vscode.Range;
}

const decorations = (extensionUri: vscode.Uri) => ({
  removed: vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor('diffEditor.removedTextBackground'),
    textDecoration: 'line-through',
  }),
  beside: vscode.window.createTextEditorDecorationType({
    after: {
      backgroundColor: new vscode.ThemeColor('diffEditor.insertedTextBackground'),
      border: '1px solid',
      borderColor: new vscode.ThemeColor('diffEditor.insertedTextBorder'),
    },
  }),
  below: vscode.window.createTextEditorDecorationType({}),
  gutter: vscode.window.createTextEditorDecorationType({
    gutterIconPath: vscode.Uri.joinPath(extensionUri, 'media', 'next-edit.svg'),
    gutterIconSize: '80%',
  }),
  label: vscode.window.createTextEditorDecorationType({
    after: {
      color: new vscode.ThemeColor('editorCodeLens.foreground'),
      fontStyle: 'italic',
      margin: '0 0 0 2em',
    },
  }),
});

export class NextEdits implements vscode.Disposable {
  private shown: Shown | undefined;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: vscode.CancellationTokenSource | undefined;
  /** Set while an accepted suggestion is applied: that change is no reason to reject it. */
  private applying = false;
  private readonly types;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    extensionUri: vscode.Uri,
    private readonly client: () => LanguageClient | undefined,
    private readonly enabled: () => boolean,
    private readonly output: vscode.LogOutputChannel,
  ) {
    this.types = decorations(extensionUri);
    this.subscriptions.push(
      ...Object.values(this.types),
      vscode.commands.registerCommand('pilotfish.nextEdit.jump', () => this.jump()),
      vscode.commands.registerCommand('pilotfish.nextEdit.accept', () => this.accept()),
      vscode.commands.registerCommand('pilotfish.nextEdit.dismiss', () => this.dismiss(true)),
      vscode.workspace.onDidChangeTextDocument((e) => this.changed(e)),
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (this.shown && e.textEditor === this.shown.editor) this.draw(this.shown);
      }),
      vscode.window.onDidChangeActiveTextEditor(() => this.dismiss(true)),
    );
  }

  /** Settings changed: with next edits turned off, nothing is shown or asked. */
  settingsChanged(): void {
    if (!this.enabled()) {
      this.cancel();
      this.dismiss(true);
    }
  }

  dispose(): void {
    this.cancel();
    this.dismiss(false);
    this.subscriptions.forEach((d) => d.dispose());
  }

  private changed(e: vscode.TextDocumentChangeEvent): void {
    const editor = vscode.window.activeTextEditor;
    if (!editor || e.document !== editor.document || e.contentChanges.length === 0) return;
    // Only the documents the server is told of (the output channel's own log is not one).
    if (!SCHEMES.includes(e.document.uri.scheme)) return;
    // Typed over: the suggestion was about text that is gone.
    this.dismiss(!this.applying);
    this.cancel();
    if (!this.enabled()) return;
    this.timer = setTimeout(() => void this.ask(editor), DEBOUNCE_MS);
  }

  /** Stops the request waiting or in flight. */
  private cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.inFlight?.cancel();
    this.inFlight = undefined;
  }

  private async ask(editor: vscode.TextEditor): Promise<void> {
    const client = this.client();
    if (!client || client.state !== State.Running) return;
    const document = editor.document;
    const version = document.version;
    const source = new vscode.CancellationTokenSource();
    this.inFlight = source;
    const params = {
      textDocument: { uri: document.uri.toString(), version },
      position: client.code2ProtocolConverter.asPosition(editor.selection.active),
    };
    let result: { edits?: Item[] } | null;
    try {
      result = await client.sendRequest('textDocument/copilotInlineEdit', params, source.token);
    } catch (e) {
      if (!source.token.isCancellationRequested) {
        this.output.warn(`pilotfish: next edit: ${e instanceof Error ? e.message : e}`);
      }
      return;
    } finally {
      if (this.inFlight === source) this.inFlight = undefined;
      source.dispose();
    }
    const item = result?.edits?.[0];
    // An answer about a version the user has typed past, or for an editor left, is stale.
    if (
      !item ||
      source.token.isCancellationRequested ||
      document.version !== version ||
      item.textDocument?.version !== version ||
      vscode.window.activeTextEditor !== editor
    ) {
      return;
    }
    this.show({ editor, version, item, range: client.protocol2CodeConverter.asRange(item.range) });
    void client.sendNotification('textDocument/didShowInlineEdit', { item });
  }

  private show(s: Shown): void {
    this.dismiss(true);
    this.shown = s;
    this.draw(s);
  }

  /** Draws `s` and sets the context keys Tab and Escape depend on. */
  private draw(s: Shown): void {
    const { editor, item } = s;
    const lines = Array.from({ length: editor.document.lineCount }, (_, i) => editor.document.lineAt(i).text);
    const cursor = editor.selection.active;
    const p = place(item, lines, cursor);
    const at = (line: number, character: number) => new vscode.Position(line, character);
    const away = isAway(item, cursor);
    // The keys first: once the suggestion can be seen, Tab must already mean it.
    void vscode.commands.executeCommand('setContext', 'pilotfish.nextEdit.visible', true);
    void vscode.commands.executeCommand('setContext', 'pilotfish.nextEdit.away', away);
    editor.setDecorations(this.types.removed, p.removed ? [s.range] : []);
    editor.setDecorations(
      this.types.beside,
      p.beside
        ? [{ range: new vscode.Range(at(p.beside.at.line, p.beside.at.character), at(p.beside.at.line, p.beside.at.character)), renderOptions: { after: { contentText: p.beside.text } } }]
        : [],
    );
    editor.setDecorations(this.types.below, p.below ? belowLines(p.below) : []);
    const line = s.range.start.line;
    const end = editor.document.lineAt(line).range.end;
    editor.setDecorations(this.types.gutter, away ? [new vscode.Range(at(line, 0), at(line, 0))] : []);
    editor.setDecorations(this.types.label, [
      { range: new vscode.Range(end, end), renderOptions: { after: { contentText: label(away) } } },
    ]);
  }

  /** Tab on a suggestion away from the cursor: the cursor goes to it. */
  private jump(): void {
    const s = this.shown;
    if (!s) return;
    s.editor.selection = new vscode.Selection(s.range.start, s.range.start);
    s.editor.revealRange(s.range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    this.draw(s);
  }

  /** Tab on a suggestion at the cursor: applied as one undoable edit, and the server told. */
  private async accept(): Promise<void> {
    const s = this.shown;
    if (!s || s.editor.document.version !== s.version) {
      this.dismiss(true);
      return;
    }
    this.clear();
    this.applying = true;
    let applied = false;
    try {
      applied = await s.editor.edit((b) => b.replace(s.range, s.item.text));
    } finally {
      this.applying = false;
    }
    const client = this.client();
    if (applied && client && s.item.command) {
      const { command, arguments: args } = s.item.command;
      await client.sendRequest('workspace/executeCommand', { command, arguments: args }).catch((e) => {
        this.output.warn(`pilotfish: next edit: ${e instanceof Error ? e.message : e}`);
      });
    }
  }

  /** Hides the suggestion; `rejected` tells the server it was turned down. */
  private dismiss(rejected: boolean): void {
    const s = this.shown;
    this.clear();
    const client = this.client();
    if (s && rejected && client?.state === State.Running) {
      void client.sendNotification('textDocument/didRejectInlineEdit', { item: s.item });
    }
  }

  private clear(): void {
    const s = this.shown;
    this.shown = undefined;
    if (s) {
      for (const type of Object.values(this.types)) s.editor.setDecorations(type, []);
    }
    void vscode.commands.executeCommand('setContext', 'pilotfish.nextEdit.visible', false);
    void vscode.commands.executeCommand('setContext', 'pilotfish.nextEdit.away', false);
  }
}

/**
 * The edited lines, drawn under line `under` over the lines that follow it (VS Code has no
 * lines of its own to insert): each a `before` box moved down by CSS, one line height apiece,
 * and right by `column` characters.
 */
function belowLines({ under, column, lines }: { under: number; column: number; lines: string[] }): vscode.DecorationOptions[] {
  const at = new vscode.Position(under, 0);
  return lines.map((text, i) => ({
    range: new vscode.Range(at, at),
    renderOptions: {
      before: {
        contentText: text === '' ? ' ' : text,
        color: new vscode.ThemeColor('editor.foreground'),
        // A style the API does not name, given through the one property it passes on as CSS.
        textDecoration: `none; position: absolute; left: ${column}ch; top: ${(i + 1) * 100}%; white-space: pre; z-index: 1; min-width: 40ch; background-color: var(--vscode-editorHoverWidget-background); border-left: 2px solid var(--vscode-diffEditor-insertedTextBorder, #9bb955)`,
      },
    },
  }));
}
