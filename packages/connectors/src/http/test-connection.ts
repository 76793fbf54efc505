/** Test Connection for http: resolve, network_policy, connect (TCP), request (GET health_path); stops at the first failure. */
import { invalidConfigResult } from '../config-parser.js';
import { runChecks, type CheckStep } from '../connection-checks.js';
import { openTcp } from '../network-steps.js';
import type { TestOptions, TestResult } from '../types.js';
import { parseHttpConfig, resolveUrl, type HttpConfig } from './http.config.js';
import { HttpSession } from './http-session.js';
import { classifyHttpError } from './http-errors.js';
import { assertAddressesAllowed, resolveAddresses, urlTarget } from '../network/target-check.js';

export async function testHttp(config: Record<string, unknown>, opts: TestOptions = {}): Promise<TestResult> {
  let cfg: HttpConfig;
  try {
    cfg = parseHttpConfig(config);
  } catch (err) {
    return invalidConfigResult(err);
  }
  const session = new HttpSession({ ...cfg, max_retries: 0 });
  const base = new URL(cfg.base_url);
  const target = urlTarget('http', cfg.base_url);
  const { host, port } = target;
  const details: Record<string, unknown> = {};
  let addresses: string[] = [];

  const steps: CheckStep[] = [
    {
      name: 'resolve',
      async run() {
        addresses = await resolveAddresses(host);
        return addresses[0] === host ? `${host} is an IP address` : `${host} resolves to ${addresses.join(', ')}`;
      },
    },
    {
      name: 'network_policy',
      async run() {
        await assertAddressesAllowed(target, addresses);
        return `${addresses.join(', ')} may be reached`;
      },
    },
    {
      name: 'connect',
      run: (signal) =>
        openTcp(addresses[0] ?? host, port, signal).then(() => `TCP connection to ${host}:${port} opened`),
    },
    {
      name: 'request',
      async run(signal) {
        const url = resolveUrl(cfg, cfg.health_path);
        const res = await session.request('GET', url, undefined, signal, { statusOnly: true });
        details['status'] = res.status;
        return `GET ${session.describe(url)} answered HTTP ${res.status}`;
      },
    },
  ];

  return runChecks(
    {
      steps,
      classify: classifyHttpError,
      details,
      secrets: session.secrets,
      successMessage: (d) => `${base.origin} answered HTTP ${String(d['status'])}`,
    },
    opts,
  );
}
