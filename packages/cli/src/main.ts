// conduit: the command line of the Conduit API (built on @conduit/sdk).
import { Command, CommanderError } from 'commander';
import { registerAuth } from './commands/auth.js';
import { registerConnectors } from './commands/connectors.js';
import { registerManifest } from './commands/manifest.js';
import { registerRuns } from './commands/runs.js';
import { Output } from './output.js';

const program = new Command('conduit')
  .description('Conduit from the command line: profiles, pipelines as code, runs and logs')
  .option('-o, --output <format>', 'text or json', 'text')
  .option('--profile <name>', 'the profile of the config file to use (default: the current one, or CONDUIT_PROFILE)')
  .option('--url <url>', 'the API URL (overrides CONDUIT_URL and the profile)')
  .showHelpAfterError()
  .exitOverride();

registerAuth(program);
registerManifest(program);
registerRuns(program);
registerConnectors(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // Help and version exit 0; usage mistakes were printed by commander.
    process.exitCode = err.exitCode === 0 ? 0 : 2;
  } else {
    const format = program.opts<{ output?: string }>().output === 'json' ? 'json' : 'text';
    new Output(format).error(err);
    process.exitCode = 1;
  }
}
