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
  // A profile named by --profile or CONDUIT_PROFILE that is not in the file is the mistake to report, once the
  // setting it was to give is missing (the environment may give them all, making the profile unneeded).
  const unknownProfile = () =>
    (options.profile ?? env.CONDUIT_PROFILE) !== undefined && !profile
      ? new UsageError(`no profile named "${profileName}" in ${configPath()} (${profileList(file.profiles)})`)
      : undefined;
  const url = options.url ?? env.CONDUIT_URL ?? profile?.url;
  if (!url)
    throw unknownProfile() ?? new UsageError(`no API URL: run \`conduit login --url <url>\`, or set CONDUIT_URL`);
  checkUrl(url, options.url ? '--url' : env.CONDUIT_URL ? 'CONDUIT_URL' : `the URL of profile "${profileName}"`);
  const fromEnv = env.CONDUIT_API_KEY || env.CONDUIT_TOKEN;
  const apiKey = fromEnv ? env.CONDUIT_API_KEY || undefined : profile?.api_key;
  const token = fromEnv ? (env.CONDUIT_API_KEY ? undefined : env.CONDUIT_TOKEN) : profile?.token;
  if (!apiKey && !token)
    throw unknownProfile() ?? new UsageError(`no credential: run \`conduit login\`, or set CONDUIT_API_KEY`);
  // A profile's credential goes only to the API it was saved for: --url or CONDUIT_URL naming another would hand it on.
  if (!fromEnv && profile?.url !== undefined && url !== profile.url && !sameOrigin(url, profile.url)) {
    throw new UsageError(
      `profile "${profileName}" holds a credential for ${profile.url}, not ${url}: ` +
        'log in to that URL (`conduit login --url`), or give its credential in CONDUIT_API_KEY or CONDUIT_TOKEN',
    );
  }
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

function profileList(profiles: Record<string, Profile>): string {
  const names = Object.keys(profiles);
  return names.length > 0 ? `profiles: ${names.join(', ')}` : 'no profiles yet: run `conduit login`';
}

/** Throws unless `url` is an http(s) URL: anything else would fail later, as a fetch error naming a made-up path. */
export function checkUrl(url: string, what: string): void {
  const protocol = URL.canParse(url) ? new URL(url).protocol : undefined;
  if (protocol !== 'http:' && protocol !== 'https:')
    throw new UsageError(`${what} must be an http(s) URL, e.g. http://127.0.0.1:3000 (got "${url}")`);
}

/** Whether two URLs name one origin (scheme, host, port); false when either is no URL. */
function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/** Loopback names and addresses: plain http to them never leaves the machine. */
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

export function clientOf(connection: Connection, output: Output): ConduitClient {
  const url = URL.canParse(connection.url) ? new URL(connection.url) : undefined;
  if (url?.protocol === 'http:' && !LOOPBACK.test(url.hostname))
    output.note(`warning: ${url.origin} is plain http: the credential crosses the network unencrypted; use https`);
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
