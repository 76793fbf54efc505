// `conduit login` and `conduit whoami`.
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import type { Command } from 'commander';
import { createConduitClient } from '@conduit/sdk';
import { configPath, readConfig, writeConfig } from '../config-file.js';
import { checkUrl, clientOf, maskKey, outputOf, resolveConnection, type GlobalOptions } from '../context.js';
import { UsageError } from '../output.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin as AsyncIterable<Buffer | string>)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8').trim();
}

/** Asks on the terminal without echoing what is typed (readline writes to a stream that drops it). */
async function promptHidden(question: string): Promise<string> {
  process.stderr.write(question);
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input: process.stdin, output: muted, terminal: true });
  const answer = await new Promise<string>((resolve) => rl.question('', resolve));
  rl.close();
  process.stderr.write('\n');
  return answer.trim();
}

interface LoginOptions extends GlobalOptions {
  apiKey?: string;
  apiKeyStdin?: boolean;
}

export function registerAuth(program: Command): void {
  program
    .command('login')
    .description('save the API URL and an API key in a profile (file mode 0600), after checking them')
    .option(
      '--api-key <key>',
      'the API key (prefer --api-key-stdin or CONDUIT_API_KEY: a flag shows in the process list)',
    )
    .option('--api-key-stdin', 'read the API key from stdin')
    .action(async (_opts: LoginOptions, cmd: Command) => {
      const opts = cmd.optsWithGlobals<LoginOptions>();
      const out = outputOf(opts);
      const file = readConfig();
      const profile = opts.profile ?? process.env.CONDUIT_PROFILE ?? file.current_profile;
      const url = opts.url ?? process.env.CONDUIT_URL ?? file.profiles[profile]?.url;
      if (!url) throw new UsageError('give the API URL: conduit login --url <url>');
      checkUrl(url, opts.url ? '--url' : process.env.CONDUIT_URL ? 'CONDUIT_URL' : `the URL of profile "${profile}"`);
      let key = opts.apiKey ?? (opts.apiKeyStdin ? await readStdin() : process.env.CONDUIT_API_KEY);
      if (!key && opts.apiKeyStdin && opts.apiKey === undefined)
        throw new UsageError(
          '--api-key-stdin: stdin was empty (pipe the key in: conduit login --api-key-stdin < key.txt)',
        );
      if (!key && process.stdin.isTTY) key = await promptHidden(`API key for ${url}: `);
      if (!key) throw new UsageError('give an API key: --api-key-stdin, CONDUIT_API_KEY, or type it when asked');
      // Checked before it is saved: a typo must not land in the file.
      await createConduitClient({ baseUrl: url, apiKey: key, userAgent: 'conduit-cli' })
        .projects.list({ pageSize: 1 })
        .pages()
        .next();
      file.profiles[profile] = { url, api_key: key };
      file.current_profile = profile;
      writeConfig(file);
      if (out.json) out.document({ profile, url, config: configPath() });
      else out.line(`Logged in to ${url} as profile "${profile}" (saved in ${configPath()}).`);
    });

  program
    .command('whoami')
    .description('show which API and credential the CLI uses, and check that it works')
    .action(async (_opts: GlobalOptions, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions>();
      const out = outputOf(opts);
      const connection = resolveConnection(opts);
      const client = clientOf(connection, out);
      await client.projects.list({ pageSize: 1 }).pages().next();
      const credential = connection.apiKey ? `api key ${maskKey(connection.apiKey)}` : 'bearer token';
      // Admin keys can name themselves; other credentials cannot list keys (403), which is fine.
      let key: { name: string; scopes: string[] } | undefined;
      if (connection.apiKey) {
        const keys = await client.raw.GET('/v2/api-keys', { params: { query: { limit: 200 } } }).catch(() => undefined);
        const mine = keys?.data?.data.find((k) => connection.apiKey!.startsWith(k.prefix));
        if (mine) key = { name: mine.name, scopes: mine.scopes };
      }
      const answer = {
        profile: connection.profile,
        url: connection.url,
        credential,
        credential_source: connection.source.credential,
        url_source: connection.source.url,
        authenticated: true,
        ...(key ? { key } : {}),
      };
      if (out.json) return out.document(answer);
      out.line(`${out.paint('green', '✔')} authenticated at ${connection.url}`);
      out.line(`  profile:    ${connection.profile}`);
      out.line(`  credential: ${credential} (from ${connection.source.credential})`);
      if (key) out.line(`  key:        ${key.name} (${key.scopes.join(', ')})`);
    });
}
