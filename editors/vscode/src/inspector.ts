// The inspector: the prompt exactly as sent, in a webview. The page is pilotfish's own
// self-contained HTML (`pilotfish/inspect`), the same one `pilotfish prompt --html` writes;
// it runs no script and loads nothing.
import * as vscode from 'vscode';

/** What `pilotfish/inspect` answers. */
export interface InspectResult {
  title: string;
  html: string;
}

let panel: vscode.WebviewPanel | undefined;

/** Shows `result` in the inspector's panel, opening it beside the editor the first time. */
export function show(result: InspectResult): void {
  if (!panel) {
    panel = vscode.window.createWebviewPanel(
      'pilotfish.inspector',
      'pilotfish: prompt',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: false, enableFindWidget: true, localResourceRoots: [] },
    );
    panel.onDidDispose(() => {
      panel = undefined;
    });
  }
  panel.title = `pilotfish: prompt (${result.title})`;
  panel.webview.html = result.html;
  panel.reveal(undefined, true);
}
