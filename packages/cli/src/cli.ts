// The `conduit` program: its commands, and how any error ends as output and an exit code (0 ok, 1 error, 2 usage).
// main.ts runs it on process.argv; the tests call runCli in-process against a stub API.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { registerAuth } from './commands/auth.js';
import { registerConnectors } from './commands/connectors.js';
import { registerManifest } from './commands/manifest.js';
import { registerRuns } from './commands/runs.js';
import { exitCodeOf, Output, UsageError } from './output.js';

/** The CLI's own version: its package.json, one level above both src/ and dist/. */
function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export function buildProgram(): Command {
  const program = new Command('conduit');
  const json = () => program.opts<{ output?: string }>().output === 'json';
  program
    .description('Conduit from the command line: profiles, pipelines as code, runs and logs')
    .version(version(), '-V, --version', 'print the version of the CLI')
    .option('-o, --output <format>', 'text or json', 'text')
    .option('--profile <name>', 'the profile of the config file to use (default: the current one, or CONDUIT_PROFILE)')
    .option('--url <url>', 'the API URL (overrides CONDUIT_URL and the profile)')
    // Set before the commands are added, which copy it: with -o json a parse error is a JSON document (runCli),
    // not text and help on stderr.
    .configureOutput({ writeErr: (text) => json() || process.stderr.write(text) })
    .showHelpAfterError()
    .exitOverride();
  registerAuth(program);
  registerManifest(program);
  registerRuns(program);
  registerConnectors(program);
  return program;
}

/** Runs one command line; sets process.exitCode (a command may have set it already, e.g. a failed run). */
export async function runCli(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    const format = program.opts<{ output?: string }>().output === 'json' ? 'json' : 'text';
    if (err instanceof CommanderError) {
      // Help and --version exit 0. In text, commander has printed the mistake and the help already.
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      if (err.exitCode !== 0 && format === 'json') new Output('json').error(new UsageError(commanderMessage(err)));
      return;
    }
    new Output(format).error(err);
    process.exitCode = exitCodeOf(err);
  }
}

function commanderMessage(err: CommanderError): string {
  if (err.code === 'commander.help') return 'give a command (see conduit --help)';
  return err.message.replace(/^error: /, '').replace(/\n/g, ' ');
}
