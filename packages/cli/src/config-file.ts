// Profiles: where the CLI finds the API and its key. One JSON file, mode 0600 (it holds keys), at
// $CONDUIT_CONFIG or ~/.config/conduit/config.json ($XDG_CONFIG_HOME honoured).
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface Profile {
  url: string;
  api_key?: string;
  token?: string;
}

export interface ConfigFile {
  current_profile: string;
  profiles: Record<string, Profile>;
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CONDUIT_CONFIG) return env.CONDUIT_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'conduit', 'config.json');
}

export function readConfig(path = configPath()): ConfigFile {
  if (!existsSync(path)) return { current_profile: 'default', profiles: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`${path} is not valid JSON (${(err as Error).message}); fix or delete it`, { cause: err });
  }
  const file = parsed as Partial<ConfigFile>;
  return { current_profile: file.current_profile ?? 'default', profiles: file.profiles ?? {} };
}

/** Written to a temporary file first, created 0600, then renamed: a reader never sees half a file or a readable key. */
export function writeConfig(config: ConfigFile, path = configPath()): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}
