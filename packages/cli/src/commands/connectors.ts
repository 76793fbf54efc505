// `conduit connectors list` and `conduit connectors test <id|name>`.
import type { Command } from 'commander';
import { clientOf, outputOf, resolveConnection, type GlobalOptions } from '../context.js';
import { findConnector } from './refs.js';

export function registerConnectors(program: Command): void {
  const connectors = program.command('connectors').description('connectors: list them, test one');

  connectors
    .command('list')
    .description('every connector, newest first')
    .action(async (_opts: GlobalOptions, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions>();
      const out = outputOf(opts);
      const client = clientOf(resolveConnection(opts), out);
      const all = await client.connectors.list({ pageSize: 200 }).toArray();
      if (out.json) return out.document({ data: all });
      out.table(
        ['ID', 'NAME', 'TYPE', 'STATUS'],
        all.map((c) => [c.id, c.name, c.type, c.status]),
      );
    });

  connectors
    .command('test <connector>')
    .description('really connect (each step a check); exit 0 only if it worked')
    .action(async (ref: string, _opts: GlobalOptions, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions>();
      const out = outputOf(opts);
      const client = clientOf(resolveConnection(opts), out);
      const connector = await findConnector(client, ref);
      const result = await client.connectors.test(connector.id);
      process.exitCode = result.ok ? 0 : 1;
      if (out.json) return out.document(result);
      for (const check of result.checks) {
        out.line(
          `${check.ok ? out.paint('green', '✔') : out.paint('red', '✖')} ${check.name.padEnd(14)} ${String(check.latency_ms).padStart(5)} ms  ${check.message}`,
        );
      }
      const verdict = result.ok
        ? out.paint('green', `${connector.name}: ok`)
        : out.paint('red', `${connector.name}: failed (${result.error_class ?? 'error'})`);
      out.line(`${verdict} in ${result.latency_ms} ms${result.ok ? '' : `: ${result.message}`}`);
    });
}
