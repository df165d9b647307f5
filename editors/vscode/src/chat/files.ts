// The agent's file requests served from VS Code's own documents: a read gives the text of the
// open document (unsaved changes included), a write goes through a WorkspaceEdit so that it
// shows in the open editor and its undo stack. Undo of a whole edit (the view's Undo button)
// is one more WorkspaceEdit back to the text before.
import * as vscode from 'vscode';
import { RpcError } from './acp';

/** The ACP `fs/read_text_file` parameters: `line` is 1-based, `limit` a count of lines. */
export interface ReadParams {
  path: string;
  line?: number | null;
  limit?: number | null;
}

function uriOf(path: string): vscode.Uri {
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw new RpcError(-32602, `the path must be absolute: ${path}`);
  }
  return vscode.Uri.file(path);
}

/** The open document for `uri`, without opening one. */
function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

/** Answers `fs/read_text_file` from the document VS Code holds (opened from disk if it is not). */
export async function read(p: ReadParams): Promise<{ content: string }> {
  const uri = uriOf(p.path);
  let doc = openDocument(uri);
  if (!doc) {
    if (!(await exists(uri))) throw new RpcError(-32002, `no such file: ${p.path}`);
    doc = await vscode.workspace.openTextDocument(uri);
  }
  let text = doc.getText();
  if (p.line || p.limit) {
    const lines = text.split('\n');
    const start = Math.max((p.line ?? 1) - 1, 0);
    const end = p.limit ? start + p.limit : lines.length;
    text = lines.slice(start, end).join('\n');
  }
  return { content: text };
}

/**
 * Puts `content` in the file's document with one WorkspaceEdit (creating the file when it is
 * new). A document that had no unsaved changes is saved after, so that the disk, which
 * commands and searches read, agrees with the editor; one with unsaved changes of the user's
 * is left unsaved, as the user left it.
 */
export async function write(path: string, content: string): Promise<null> {
  const uri = uriOf(path);
  const edit = new vscode.WorkspaceEdit();
  const isNew = !openDocument(uri) && !(await exists(uri));
  if (isNew) {
    edit.createFile(uri, { ignoreIfExists: true });
    edit.insert(uri, new vscode.Position(0, 0), content);
  }
  const doc = isNew ? undefined : openDocument(uri) ?? (await vscode.workspace.openTextDocument(uri));
  const wasDirty = doc?.isDirty ?? false;
  if (doc) edit.replace(uri, wholeRange(doc), content);
  if (!(await vscode.workspace.applyEdit(edit))) {
    throw new RpcError(-32603, `VS Code refused the edit of ${path}`);
  }
  if (!wasDirty) await (openDocument(uri) ?? (await vscode.workspace.openTextDocument(uri))).save();
  return null;
}

/** Reverts the agent's edit of `path`: back to `oldText`, or the file deleted when it was new. */
export async function undo(path: string, oldText: string | null): Promise<void> {
  const uri = uriOf(path);
  if (oldText === null) {
    const edit = new vscode.WorkspaceEdit();
    edit.deleteFile(uri, { ignoreIfNotExists: true });
    await vscode.workspace.applyEdit(edit);
    return;
  }
  await write(path, oldText);
}

function wholeRange(doc: vscode.TextDocument): vscode.Range {
  return new vscode.Range(new vscode.Position(0, 0), doc.lineAt(doc.lineCount - 1).range.end);
}
