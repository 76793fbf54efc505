/** Test Connection for redis: resolve, network_policy, connect (TCP), authenticate (AUTH/SELECT on connect), ping (and server version). */
import type { Redis } from 'ioredis';
import { invalidConfigResult } from '../config-parser.js';
import { ConnectorError } from '../connector-error.js';
import { runChecks, type CheckStep } from '../connection-checks.js';
import { openTcp } from '../network-steps.js';
import { policySteps, type ResolvedTarget } from '../network/policy-steps.js';
import type { TestOptions, TestResult } from '../types.js';
import { classifyRedisError, closeRedis, connectRedis } from './connection.js';
import { parseRedisConfig, redisSecrets, type RedisConfig } from './redis.config.js';

export async function testRedis(config: Record<string, unknown>, opts: TestOptions = {}): Promise<TestResult> {
  let cfg: RedisConfig;
  try {
    cfg = parseRedisConfig(config);
  } catch (err) {
    return invalidConfigResult(err);
  }
  const details: Record<string, unknown> = {};
  const target: ResolvedTarget = { address: cfg.host };
  let client: Redis | undefined;

  const steps: CheckStep[] = [
    ...policySteps({ connectorType: 'redis', host: cfg.host, port: cfg.port }, target),
    {
      name: 'connect',
      run: (signal) =>
        openTcp(target.address, cfg.port, signal).then(() => `TCP connection to ${cfg.host}:${cfg.port} opened`),
    },
    {
      name: 'authenticate',
      async run(signal) {
        client = await connectRedis(cfg, signal);
        return `authenticated as "${cfg.username ?? 'default'}" on database ${cfg.db}`;
      },
    },
    {
      name: 'ping',
      async run() {
        if (!client) throw new Error('not connected');
        // Any server that echoes what it is sent "answers" a command: only Redis's own answers pass.
        const pong: unknown = await client.ping();
        const info: unknown = await client.info('server');
        const version = typeof info === 'string' ? /redis_version:([^\r\n]+)/.exec(info)?.[1] : undefined;
        if (pong !== 'PONG' || version === undefined) {
          throw new ConnectorError(
            `the server at ${cfg.host}:${cfg.port} does not answer as Redis does (PING, INFO server): is it a Redis server?`,
            'config_error',
          );
        }
        details['server_version'] = version;
        return 'PING answered';
      },
    },
  ];

  return runChecks(
    {
      steps,
      classify: classifyRedisError,
      details,
      secrets: redisSecrets(cfg),
      cleanup: () => (client ? closeRedis(client) : undefined),
      successMessage: (d) => `connected to Redis ${String(d['server_version'])}`,
    },
    opts,
  );
}
