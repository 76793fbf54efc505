/** Test Connection for amqp: resolve, network_policy, connect (TCP), authenticate (AMQP handshake on the vhost), open_channel. */
import type { ChannelModel } from 'amqplib';
import { invalidConfigResult } from '../config-parser.js';
import { runChecks, type CheckStep } from '../connection-checks.js';
import { openTcp } from '../network-steps.js';
import { policySteps, type ResolvedTarget } from '../network/policy-steps.js';
import type { TestOptions, TestResult } from '../types.js';
import { parseAmqpConfig, type AmqpConfig } from './amqp.config.js';
import { amqpSecrets, classifyAmqpError, closeAmqp, connectAmqp } from './connection.js';

export async function testAmqp(config: Record<string, unknown>, opts: TestOptions = {}): Promise<TestResult> {
  let cfg: AmqpConfig;
  try {
    cfg = parseAmqpConfig(config);
  } catch (err) {
    return invalidConfigResult(err);
  }
  const details: Record<string, unknown> = {};
  const target: ResolvedTarget = { address: cfg.host };
  let connection: ChannelModel | undefined;

  const steps: CheckStep[] = [
    ...policySteps({ connectorType: 'amqp', host: cfg.host, port: cfg.port }, target),
    {
      name: 'connect',
      run: (signal) =>
        openTcp(target.address, cfg.port, signal).then(() => `TCP connection to ${cfg.host}:${cfg.port} opened`),
    },
    {
      name: 'authenticate',
      async run(signal) {
        connection = await connectAmqp(cfg, signal);
        connection.on('error', () => undefined);
        const props = connection.connection.serverProperties;
        details['server_product'] = props.product;
        details['server_version'] = props.version;
        return `authenticated as "${cfg.username}" on vhost "${cfg.vhost}"`;
      },
    },
    {
      name: 'open_channel',
      async run() {
        if (!connection) throw new Error('not connected');
        const channel = await connection.createChannel();
        await channel.close();
        return 'a channel opened and closed';
      },
    },
  ];

  return runChecks(
    {
      steps,
      classify: classifyAmqpError,
      details,
      secrets: amqpSecrets(cfg),
      cleanup: () => (connection ? closeAmqp(connection) : undefined),
      successMessage: (d) =>
        `connected to ${String(d['server_product'])} ${String(d['server_version'])} as "${cfg.username}"`,
    },
    opts,
  );
}
