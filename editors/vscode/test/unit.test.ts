// The extension's own logic, apart from VS Code: what it passes to the server and what the
// status bar says. Run with node 24's test runner, which reads TypeScript as it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { needsRestart, readSettings, serverCommand, serverSettings, USER_ONLY } from '../src/settings.ts';
import { describe, unreachableEndpoint } from '../src/status.ts';

const config = (values: Record<string, unknown>) => ({
  get<T>(key: string): T | undefined {
    return values[key] as T | undefined;
  },
});

test('empty settings leave the configuration file in charge', () => {
  const s = readSettings(config({}));
  assert.deepEqual(serverSettings(s), { backend: {}, completion: {}, chat: {} });
  assert.deepEqual(serverCommand(s), { command: 'pilotfish', args: ['lsp'] });
  assert.equal(s.enable, true);
});

test('settings become the configuration file\'s keys', () => {
  const s = readSettings(
    config({
      path: ' /opt/pilotfish ',
      backend: 'ollama',
      endpoint: 'http://127.0.0.1:11434',
      model: 'qwen2.5-coder:1.5b-base',
      strategy: 'copilot',
      gguf: '',
      args: ['--config', '/etc/pilotfish.toml', 7],
    }),
  );
  assert.deepEqual(serverSettings(s), {
    backend: { kind: 'ollama', endpoint: 'http://127.0.0.1:11434', model: 'qwen2.5-coder:1.5b-base' },
    completion: { strategy: 'copilot' },
    chat: {},
  });
  assert.deepEqual(serverCommand(s), {
    command: '/opt/pilotfish',
    args: ['lsp', '--config', '/etc/pilotfish.toml'],
  });
  const gguf = readSettings(config({ gguf: '/models/coder.gguf' }));
  assert.deepEqual(serverSettings(gguf).backend, { gguf: '/models/coder.gguf' });
});

test('a workspace cannot choose the program, its arguments or the model file', () => {
  // What VS Code's inspect() would show for a repository whose .vscode/settings.json sets them.
  const values: Record<string, unknown> = { path: '/evil/run-me', gguf: '/evil/model.gguf', args: ['--config', '/evil.toml'], endpoint: 'http://b' };
  const fromWorkspace = {
    get<T>(key: string): T | undefined {
      return values[key] as T | undefined;
    },
    inspect<T>(key: string) {
      return { workspaceValue: values[key] as T | undefined, defaultValue: undefined };
    },
  };
  const s = readSettings(fromWorkspace);
  assert.deepEqual(serverCommand(s), { command: 'pilotfish', args: ['lsp'] });
  assert.equal(s.gguf, '');
  // The user's own settings still count.
  const fromUser = {
    get<T>(key: string): T | undefined {
      return (key === 'path' ? '/opt/pilotfish' : undefined) as T | undefined;
    },
    inspect<T>(key: string) {
      return {
        globalValue: (key === 'path' ? '/opt/pilotfish' : undefined) as T | undefined,
        workspaceValue: (key === 'path' ? '/evil/run-me' : undefined) as T | undefined,
      };
    },
  };
  assert.equal(serverCommand(readSettings(fromUser)).command, '/opt/pilotfish');
  // The manifest agrees: those settings are machine scope, and untrusted folders are limited.
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const properties = manifest.contributes.configuration.properties;
  for (const key of USER_ONLY) {
    assert.equal(properties[`pilotfish.${key}`].scope, 'machine', key);
  }
  const untrusted = manifest.capabilities.untrustedWorkspaces;
  assert.equal(untrusted.supported, 'limited');
  assert.ok(untrusted.restrictedConfigurations.includes('pilotfish.endpoint'));
});

test('only the binary and its arguments need a new server', () => {
  const a = readSettings(config({ endpoint: 'http://a' }));
  assert.equal(needsRestart(a, readSettings(config({ endpoint: 'http://b' }))), false);
  assert.equal(needsRestart(a, readSettings(config({ endpoint: 'http://a', path: '/x' }))), true);
  assert.equal(needsRestart(a, readSettings(config({ endpoint: 'http://a', args: ['-v'] }))), true);
});

test('the status bar names what is happening', () => {
  assert.match(describe({ kind: 'ready', busy: false }).text, /pilotfish: ready/);
  assert.match(describe({ kind: 'ready', busy: true }).text, /asking the model/);
  const refused =
    'could not connect to http://127.0.0.1:8080/infill: is the server running? (Connection refused)';
  assert.equal(unreachableEndpoint(refused), 'http://127.0.0.1:8080');
  assert.match(describe({ kind: 'error', message: refused }).text, /no model server at http:\/\/127\.0\.0\.1:8080$/);
  const http = 'http://127.0.0.1:8080/infill answered HTTP 500: model failed to load and much more text after it';
  const shown = describe({ kind: 'error', message: http });
  assert.equal(unreachableEndpoint(http), undefined);
  assert.ok(shown.text.endsWith('…') && shown.text.length <= 80 + 20, shown.text);
  assert.ok(shown.tooltip.includes(http));
  assert.match(describe({ kind: 'stopped', message: 'gone' }).text, /server stopped/);
  assert.match(describe({ kind: 'off' }).text, /off/);
});
