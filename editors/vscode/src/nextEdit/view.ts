// What a next edit suggestion looks like and what Tab does with it, apart from VS Code: where
// the replaced text is marked, where the new text is drawn (beside it on one line, below it when
// it spans lines), and whether the suggestion is at the cursor or away from it.

/** A position as the language server sends it: 0-based line and UTF-16 character. */
export interface Pos {
  line: number;
  character: number;
}

/** A range as the language server sends it. */
export interface Span {
  start: Pos;
  end: Pos;
}

/** A suggestion's text and the range it replaces (`textDocument/copilotInlineEdit`). */
export interface Suggestion {
  text: string;
  range: Span;
}

/** Where and how a suggestion is drawn. */
export interface Placement {
  /** The text the edit replaces, marked where it is; `null` when the edit only inserts. */
  removed: Span | null;
  /** The new text drawn just after the replaced text, when the edit stays on one line. */
  beside: { at: Pos; text: string } | null;
  /**
   * The edited lines as they would read, drawn under line `under` from character `column`,
   * when the edit spans lines. They are drawn over the lines that follow; `column` is 0 unless
   * the cursor is on one of those, when they move right of that code, so no typing is hidden.
   */
  below: { under: number; column: number; lines: string[] } | null;
}

const isEmpty = (s: Span) => s.start.line === s.end.line && s.start.character === s.end.character;

/**
 * How `s` is drawn over a document whose lines are `lines`. A one-line edit shows its new text
 * beside the text it replaces (a deletion only marks it); an edit that spans lines, or inserts
 * some, shows the lines it touches as they would read after it, below the last of them.
 */
export function place(s: Suggestion, lines: readonly string[], cursor?: Pos): Placement {
  const removed = isEmpty(s.range) ? null : s.range;
  const oneLine = s.range.start.line === s.range.end.line && !s.text.includes('\n');
  if (oneLine) {
    return { removed, beside: s.text === '' ? null : { at: s.range.end, text: s.text }, below: null };
  }
  const first = lines[s.range.start.line] ?? '';
  const last = lines[s.range.end.line] ?? '';
  const after = first.slice(0, s.range.start.character) + s.text + last.slice(s.range.end.character);
  const shown = after.split('\n');
  const under = s.range.end.line;
  const covered = lines.slice(under + 1, under + 1 + shown.length);
  const hides = cursor !== undefined && cursor.line > under && cursor.line <= under + shown.length;
  const column = hides ? Math.max(0, ...covered.map((l) => l.length)) + 4 : 0;
  return { removed, beside: null, below: { under, column, lines: shown } };
}

/**
 * Whether the suggestion is away from the cursor: Tab first goes to it. One on the cursor's
 * line, or on the lines it replaces, is at the cursor: Tab accepts it.
 */
export function isAway(s: Suggestion, cursor: Pos): boolean {
  return cursor.line < s.range.start.line || cursor.line > s.range.end.line;
}

/** What Tab does. */
export type TabAction = 'ghost-text' | 'jump' | 'accept' | 'indent';

/**
 * Tab's meaning, as the keybindings' `when` clauses give it: ghost text at the cursor wins (as
 * in Copilot), then a suggestion away from the cursor is gone to, one at the cursor accepted;
 * with neither, Tab is Tab.
 */
export function tabAction(state: { ghostText: boolean; suggestion: boolean; away: boolean }): TabAction {
  if (state.ghostText) return 'ghost-text';
  if (!state.suggestion) return 'indent';
  return state.away ? 'jump' : 'accept';
}

/** The small label beside a suggestion, saying what Tab will do. */
export function label(away: boolean): string {
  return away ? 'Tab: go to the suggested edit' : 'Tab: accept · Esc: dismiss';
}
