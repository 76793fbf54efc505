// conduit: the command line of the Conduit API (built on @conduit/sdk).
import { runCli } from './cli.js';

await runCli(process.argv);
