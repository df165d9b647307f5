// Next edit suggestions apart from VS Code: where a suggestion is drawn, whether it is at the
// cursor or away from it, what Tab does, the settings that reach the server, and the manifest's
// keys. Run with node 24's test runner, which reads TypeScript as it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { isAway, label, place, tabAction } from '../src/nextEdit/view.ts';
import { readSettings, serverSettings } from '../src/settings.ts';

const span = (sl: number, sc: number, el: number, ec: number) => ({
  start: { line: sl, character: sc },
  end: { line: el, character: ec },
});
const lines = ['def scale(length, factor):', '    return size * factor', ''];

test('a one-line edit marks the replaced text and shows the new text beside it', () => {
  // `size` on line 1 becomes `length`.
  const p = place({ text: 'length', range: span(1, 11, 1, 15) }, lines);
  assert.deepEqual(p.removed, span(1, 11, 1, 15));
  assert.deepEqual(p.beside, { at: { line: 1, character: 15 }, text: 'length' });
  assert.equal(p.below, null);
});

test('an insertion marks nothing, a deletion shows nothing beside', () => {
  const insert = place({ text: '3D', range: span(0, 5, 0, 5) }, lines);
  assert.equal(insert.removed, null);
  assert.deepEqual(insert.beside, { at: { line: 0, character: 5 }, text: '3D' });
  const remove = place({ text: '', range: span(1, 10, 1, 17) }, lines);
  assert.deepEqual(remove.removed, span(1, 10, 1, 17));
  assert.equal(remove.beside, null);
});

test('an edit over several lines shows the lines as they would read, below them', () => {
  // Line 1's `size * factor` becomes two lines.
  const p = place({ text: 'length\n    return result * factor', range: span(1, 11, 1, 15) }, lines);
  assert.equal(p.beside, null);
  assert.deepEqual(p.below, {
    under: 1,
    column: 0,
    lines: ['    return length', '    return result * factor * factor'],
  });
  // Spanning lines: the first line's start and the last line's end are kept.
  const joined = place({ text: 'x', range: span(0, 4, 1, 10) }, lines);
  assert.deepEqual(joined.below, { under: 1, column: 0, lines: ['def x size * factor'] });
  assert.deepEqual(joined.removed, span(0, 4, 1, 10));
});

test('lines drawn below move right of the code when they would hide the cursor', () => {
  const code = ['def f(a):', '    b = a', '    return b', 'x = f(1)  # long line here', ''];
  const s = { text: 'c = a\n    d = c', range: span(1, 4, 1, 9) };
  // Drawn over lines 2 and 3; the cursor on line 3 would be hidden.
  assert.equal(place(s, code, { line: 3, character: 2 }).below?.column, 'x = f(1)  # long line here'.length + 4);
  // The cursor elsewhere: under the line, from its start.
  assert.equal(place(s, code, { line: 0, character: 2 }).below?.column, 0);
  assert.equal(place(s, code, { line: 4, character: 0 }).below?.column, 0);
  assert.equal(place(s, code).below?.column, 0);
});

test('at the cursor is on the lines the edit replaces; elsewhere is away', () => {
  const s = { text: 'length', range: span(3, 11, 4, 2) };
  assert.equal(isAway(s, { line: 0, character: 14 }), true);
  assert.equal(isAway(s, { line: 5, character: 0 }), true);
  assert.equal(isAway(s, { line: 3, character: 0 }), false);
  assert.equal(isAway(s, { line: 4, character: 9 }), false);
  assert.match(label(true), /Tab: go to/);
  assert.match(label(false), /Tab: accept/);
});

test('Tab: ghost text wins, then jump or accept, else Tab is Tab', () => {
  assert.equal(tabAction({ ghostText: true, suggestion: true, away: false }), 'ghost-text');
  assert.equal(tabAction({ ghostText: true, suggestion: true, away: true }), 'ghost-text');
  assert.equal(tabAction({ ghostText: false, suggestion: true, away: true }), 'jump');
  assert.equal(tabAction({ ghostText: false, suggestion: true, away: false }), 'accept');
  assert.equal(tabAction({ ghostText: false, suggestion: false, away: false }), 'indent');
});

test('the keybindings say what tabAction says', () => {
  // A small reader of the `when` clauses used: `a && !b && c` over context keys.
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const holds = (when: string, keys: Record<string, boolean>) =>
    when.split('&&').every((term) => {
      const t = term.trim();
      return t.startsWith('!') ? !keys[t.slice(1)] : Boolean(keys[t]);
    });
  const tab = (keys: Record<string, boolean>) =>
    manifest.contributes.keybindings
      .filter((k: { key: string; when: string }) => k.key === 'tab' && holds(k.when, keys))
      .map((k: { command: string }) => k.command);
  for (const ghostText of [false, true]) {
    for (const suggestion of [false, true]) {
      for (const away of [false, true]) {
        const keys = {
          editorTextFocus: true,
          inlineSuggestionVisible: ghostText,
          'pilotfish.nextEdit.visible': suggestion,
          'pilotfish.nextEdit.away': suggestion && away,
        };
        const expected = { jump: ['pilotfish.nextEdit.jump'], accept: ['pilotfish.nextEdit.accept'] }[
          tabAction({ ghostText, suggestion, away }) as 'jump' | 'accept'
        ] ?? [];
        assert.deepEqual(tab(keys), expected, JSON.stringify(keys));
      }
    }
  }
  const escape = manifest.contributes.keybindings.find((k: { key: string }) => k.key === 'escape');
  assert.equal(escape.command, 'pilotfish.nextEdit.dismiss');
  assert.ok(escape.when.includes('pilotfish.nextEdit.visible') && escape.when.includes('!inlineSuggestionVisible'));
});

test('next edits are on by default, and the chat settings become `[chat]` keys', () => {
  const config = (values: Record<string, unknown>) => ({
    get<T>(key: string): T | undefined {
      return values[key] as T | undefined;
    },
  });
  assert.equal(readSettings(config({})).nextEdit, true);
  assert.equal(readSettings(config({ 'nextEdit.enable': false })).nextEdit, false);
  const s = readSettings(
    config({ 'chat.backend': 'ollama-chat', 'chat.endpoint': ' http://127.0.0.1:11434 ', 'chat.model': 'qwen' }),
  );
  assert.deepEqual(serverSettings(s).chat, { kind: 'ollama-chat', endpoint: 'http://127.0.0.1:11434', model: 'qwen' });
  // Empty: the configuration file, else the completions' server (gguf's managed one too).
  assert.deepEqual(serverSettings(readSettings(config({ gguf: '/m.gguf' }))).chat, {});
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const properties = manifest.contributes.configuration.properties;
  assert.equal(properties['pilotfish.nextEdit.enable'].default, true);
  for (const key of ['backend', 'endpoint', 'model']) {
    assert.ok(properties[`pilotfish.chat.${key}`], key);
    assert.ok(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations.includes(`pilotfish.chat.${key}`), key);
  }
});
