// The chat view's agent command line: `pilotfish acp` with the model settings
// `pilotfish.chat.backend`, `.endpoint` and `.model`, which mean what `pilotfish chat`'s
// `--backend`, `--endpoint` and `--model` mean. An empty one is left out, so that the
// configuration file's `[chat]` section, or pilotfish's default, holds.
import type { Configuration, ExtensionSettings } from '../settings';
import type { AgentCommand } from './session';

export interface ChatSettings {
  backend: string;
  endpoint: string;
  model: string;
}

export function readChatSettings(config: Configuration): ChatSettings {
  const text = (key: string) => (config.get<string>(`chat.${key}`) ?? '').trim();
  return { backend: text('backend'), endpoint: text('endpoint'), model: text('model') };
}

/**
 * `pilotfish acp` from the binary the language server runs (`pilotfish.path`), with the chat
 * settings, and the `--config` file that `pilotfish.args` names for the language server (the
 * one configuration for both); the other server arguments belong to `pilotfish lsp` alone.
 */
export function agentCommand(s: ExtensionSettings, chat: ChatSettings, managed?: string): AgentCommand {
  const args = ['acp'];
  if (chat.backend) args.push('--backend', chat.backend);
  // With no chat endpoint set, the model server `pilotfish.gguf` made the language server
  // start serves chat too: one model loaded once.
  const endpoint = chat.endpoint || (s.gguf ? managed : undefined);
  if (endpoint) args.push('--endpoint', endpoint);
  if (chat.model) args.push('--model', chat.model);
  const config = configFile(s.args);
  if (config) args.push('--config', config);
  return { command: s.path || 'pilotfish', args };
}

function configFile(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--config' && i + 1 < args.length) return args[i + 1];
    if (args[i].startsWith('--config=')) return args[i].slice('--config='.length);
  }
  return undefined;
}
