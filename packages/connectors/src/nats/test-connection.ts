/** Test Connection for nats: resolve, network_policy, connect (TCP), authenticate (NATS handshake), jetstream (account info). */
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { invalidConfigResult } from '../config-parser.js';
import { runChecks, type CheckStep } from '../connection-checks.js';
import { openTcp } from '../network-steps.js';
import { policySteps, type ResolvedTarget } from '../network/policy-steps.js';
import type { TestOptions, TestResult } from '../types.js';
import { classifyNatsError, closeNats, connectNats } from './connection.js';
import { natsSecrets, parseNatsConfig, type NatsConfig } from './nats.config.js';

export async function testNats(config: Record<string, unknown>, opts: TestOptions = {}): Promise<TestResult> {
  let cfg: NatsConfig;
  try {
    cfg = parseNatsConfig(config);
  } catch (err) {
    return invalidConfigResult(err);
  }
  const details: Record<string, unknown> = {};
  const target: ResolvedTarget = { address: cfg.host };
  let nc: NatsConnection | undefined;

  const steps: CheckStep[] = [
    ...policySteps({ connectorType: 'nats', host: cfg.host, port: cfg.port }, target),
    {
      name: 'connect',
      run: (signal) =>
        openTcp(target.address, cfg.port, signal).then(() => `TCP connection to ${cfg.host}:${cfg.port} opened`),
    },
    {
      name: 'authenticate',
      async run(signal) {
        nc = await connectNats(cfg, signal);
        details['server_version'] = nc.info?.version;
        return cfg.user ? `authenticated as "${cfg.user}"` : 'connected';
      },
    },
    {
      name: 'jetstream',
      async run() {
        if (!nc) throw new Error('not connected');
        const info = await (await jetstreamManager(nc)).getAccountInfo();
        details['streams'] = info.streams;
        return `JetStream is available (${info.streams} streams)`;
      },
    },
  ];

  return runChecks(
    {
      steps,
      classify: classifyNatsError,
      details,
      secrets: natsSecrets(cfg),
      cleanup: () => (nc ? closeNats(nc) : undefined),
      successMessage: (d) => `connected to NATS ${String(d['server_version'])} with JetStream`,
    },
    opts,
  );
}
