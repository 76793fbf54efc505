/**
 * Where each network connector type connects, read from its config, so that the catalog can refuse a config at
 * create and update (422) when a literal address, or a name that resolves, is refused. Types without a network
 * target (file, duckdb) have none.
 */
import { parseAmqpConfig } from '../amqp/amqp.config.js';
import { ConnectorError } from '../connector-error.js';
import { getDriver } from '../registry.js';
import { parseHttpConfig } from '../http/http.config.js';
import { parseMqttConfig } from '../mqtt/mqtt.config.js';
import { parseMysqlConfig } from '../mysql/mysql.config.js';
import { parseNatsConfig } from '../nats/nats.config.js';
import { parseOpenAiConfig } from '../openai/openai.config.js';
import { parsePostgresConfig } from '../postgres/postgres.config.js';
import { parseRedisConfig } from '../redis/redis.config.js';
import { endpointOf } from '../s3/s3-client.js';
import { parseS3Config } from '../s3/s3.config.js';
import { assertAddressesAllowed, resolveAddresses, urlTarget, type NetworkTarget } from './target-check.js';

/** A 422 `errors[]` entry: code `network_policy` (an internal range) or `platform_service` (the platform's own). */
export interface NetworkPolicyProblem {
  path: string;
  code: string;
  message: string;
}

interface ConfiguredTarget extends NetworkTarget {
  /** The request-body path of the setting that names the host, for the 422's `errors[].path`. */
  path: string;
}

type HostPort = { host: string; port: number };
const hostTarget = (type: string, cfg: HostPort): ConfiguredTarget => ({
  connectorType: type,
  host: cfg.host,
  port: cfg.port,
  path: 'config.host',
});

const TARGETS: Readonly<Record<string, (config: Record<string, unknown>) => ConfiguredTarget>> = {
  postgres: (c) => {
    const cfg = parsePostgresConfig(c);
    return { ...hostTarget('postgres', cfg), database: cfg.database };
  },
  mysql: (c) => hostTarget('mysql', parseMysqlConfig(c)),
  redis: (c) => hostTarget('redis', parseRedisConfig(c)),
  amqp: (c) => hostTarget('amqp', parseAmqpConfig(c)),
  nats: (c) => hostTarget('nats', parseNatsConfig(c)),
  mqtt: (c) => hostTarget('mqtt', parseMqttConfig(c)),
  s3: (c) => {
    const cfg = parseS3Config(c);
    return { connectorType: 's3', ...endpointOf(cfg), path: cfg.endpoint ? 'config.endpoint' : 'config.bucket' };
  },
  http: (c) => ({ ...urlTarget('http', parseHttpConfig(c).base_url), path: 'config.base_url' }),
  openai: (c) => ({ ...urlTarget('openai', parseOpenAiConfig(c).base_url), path: 'config.base_url' }),
};

/** True when the type reaches a server over the network (and so is subject to the policy). */
export const isNetworkConnectorType = (type: string): boolean => type in TARGETS;

/**
 * The policy's verdict on a config, as 422 problems: none when the config is allowed, when it does not parse (the
 * schema check reports that) or when its host name does not resolve from here (Test Connection and runs check again).
 */
export async function networkPolicyProblems(
  type: string,
  config: Record<string, unknown>,
): Promise<NetworkPolicyProblem[]> {
  const targetOf = TARGETS[type];
  if (!targetOf) return [];
  // Secrets play no part in where a connector points, and may arrive in any encoding: stand-ins let the config parse.
  const secretFields = getDriver(type)?.info.secret_fields ?? [];
  const located = Object.fromEntries(
    Object.entries(config).map(([k, v]) => [k, secretFields.includes(k) && v !== undefined ? 'secret' : v]),
  );
  let target: ConfiguredTarget;
  try {
    target = targetOf(located);
  } catch {
    return [];
  }
  const addresses = await resolveAddresses(target.host).catch(() => []);
  try {
    await assertAddressesAllowed(target, addresses);
    return [];
  } catch (err) {
    if (!(err instanceof ConnectorError)) throw err;
    return [{ path: target.path, code: err.code ?? 'network_policy', message: err.message }];
  }
}
