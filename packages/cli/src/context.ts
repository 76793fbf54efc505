// What every command needs: the output settings and, for commands that talk to the API, a client built from
// flags > environment (CONDUIT_URL, CONDUIT_API_KEY, CONDUIT_TOKEN, CONDUIT_PROFILE) > the profile file.
import { createConduitClient, type ConduitClient } from '@conduit/sdk';
import { configPath, readConfig, type Profile } from './config-file.js';
import { Output, UsageError, type OutputFormat } from './output.js';

export interface GlobalOptions {
  output?: string;
  profile?: string;
  url?: string;
}

export interface Connection {
  profile: string;
  url: string;
  apiKey: string | undefined;
  token: string | undefined;
  /** Where each setting came from, for whoami. */
  source: { url: string; credential: string };
}

export function outputOf(options: GlobalOptions): Output {
  const format = options.output ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`--output must be text or json (got ${format})`);
  return new Output(format satisfies OutputFormat);
}

export function resolveConnection(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Connection {
  const file = readConfig();
  const profileName = options.profile ?? env.CONDUIT_PROFILE ?? file.current_profile;
  const profile: Profile | undefined = file.profiles[profileName];
  const url = options.url ?? env.CONDUIT_URL ?? profile?.url;
  if (!url) throw new UsageError(`no API URL: run \`conduit login --url <url>\`, or set CONDUIT_URL`);
  const fromEnv = env.CONDUIT_API_KEY || env.CONDUIT_TOKEN;
  const apiKey = fromEnv ? env.CONDUIT_API_KEY || undefined : profile?.api_key;
  const token = fromEnv ? (env.CONDUIT_API_KEY ? undefined : env.CONDUIT_TOKEN) : profile?.token;
  if (!apiKey && !token) throw new UsageError(`no credential: run \`conduit login\`, or set CONDUIT_API_KEY`);
  return {
    profile: profileName,
    url,
    apiKey,
    token,
    source: {
      url: options.url ? '--url' : env.CONDUIT_URL ? 'CONDUIT_URL' : `profile "${profileName}" (${configPath()})`,
      credential: fromEnv ? (env.CONDUIT_API_KEY ? 'CONDUIT_API_KEY' : 'CONDUIT_TOKEN') : `profile "${profileName}"`,
    },
  };
}

export function clientOf(connection: Connection, output: Output): ConduitClient {
  return createConduitClient({
    baseUrl: connection.url,
    ...(connection.apiKey ? { apiKey: connection.apiKey } : { token: connection.token ?? '' }),
    userAgent: 'conduit-cli',
    onRetry: (info) =>
      output.note(
        output.paint(
          'gray',
          `retrying ${info.method} ${new URL(info.url).pathname} in ${info.delayMs} ms (answer ${info.status ?? 'none'})`,
        ),
      ),
  });
}

/** `cnd_abcd…` : enough to tell keys apart, never the key. */
export function maskKey(key: string): string {
  return `${key.slice(0, Math.min(8, Math.floor(key.length / 3)))}…`;
}
