/**
 * Which addresses a network connector may reach, for every connector type. Internal ranges (loopback, private,
 * link-local, CGNAT, NAT64, 6to4, TEST-NET, benchmarking, multicast, reserved, IPv4 forms written as IPv6) are refused
 * unless the operator allows private networks (CONNECTOR_ALLOW_PRIVATE_NETWORKS=true) or lists the range
 * (CONNECTOR_ALLOWED_NETWORKS). Cloud metadata addresses are refused whatever the settings: there is no escape hatch.
 */
import { ConnectorError } from '../connector-error.js';
import { connectorEnvironment } from '../environment.js';
import { isMetadataAddress, internalRangeKind } from './address-ranges.js';
import { embeddedIpv4, inPrefix, parseIp, parsePrefix, type IpPrefix } from './ip-address.js';

export interface NetworkPolicy {
  allowPrivateNetworks: boolean;
  /** Ranges reachable although internal. */
  allowedNetworks: readonly IpPrefix[];
}

export const NETWORK_POLICY_CODE = 'network_policy';

/** Parses CONNECTOR_ALLOWED_NETWORKS entries; a malformed one is the operator's error, said plainly. */
export function parseAllowedNetworks(entries: readonly string[]): IpPrefix[] {
  return entries.map((entry) => {
    const prefix = parsePrefix(entry);
    if (!prefix)
      throw new ConnectorError(
        `CONNECTOR_ALLOWED_NETWORKS: "${entry}" is not a CIDR range such as 10.1.0.0/16`,
        'config_error',
      );
    return prefix;
  });
}

/**
 * A zod `superRefine` for the CONNECTOR_ALLOWED_NETWORKS setting of a service's config, so that a typo stops the
 * service at start-up instead of failing connectors later (typed structurally: this package does not use zod).
 */
export function refineAllowedNetworks(
  value: string | undefined,
  ctx: { addIssue(issue: { code: 'custom'; message: string }): void },
): void {
  try {
    parseAllowedNetworks(connectorEnvironment({ CONNECTOR_ALLOWED_NETWORKS: value }).allowedNetworks);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message.replace(/^CONNECTOR_ALLOWED_NETWORKS: /, '') });
  }
}

/** The policy the operator configured (read from the environment now). */
export function currentNetworkPolicy(env: NodeJS.ProcessEnv = process.env): NetworkPolicy {
  const { allowPrivateNetworks, allowedNetworks } = connectorEnvironment(env);
  return { allowPrivateNetworks, allowedNetworks: parseAllowedNetworks(allowedNetworks) };
}

/** Why `address` (an IP) is refused under `policy`, or null when it may be reached. */
export function refusalReason(address: string, policy: NetworkPolicy): string | null {
  const ip = parseIp(address);
  if (!ip) return `${address} is not an IP address`;
  if (isMetadataAddress(ip)) return `${address} is a cloud metadata address, which connectors may never reach`;
  const kind = internalRangeKind(ip);
  if (kind === null || policy.allowPrivateNetworks) return null;
  // An IPv4 address written as IPv6 reaches that IPv4 address: an allowed range of either form lets it through.
  const inner = embeddedIpv4(ip);
  const mapped = inner !== null && /IPv4-(mapped|compatible|translated)/.test(kind) ? inner : null;
  if (policy.allowedNetworks.some((net) => inPrefix(ip, net) || (mapped !== null && inPrefix(mapped, net))))
    return null;
  return `${address} is a ${kind} address`;
}

/** The one message for a refused address: it names the address, never whether anything listens there. */
export function policyError(host: string, reason: string): ConnectorError {
  const shown = host === reason.split(' ')[0] ? '' : `${host} -> `;
  const hint = reason.includes('may never')
    ? ''
    : ' (an operator can allow private networks with CONNECTOR_ALLOW_PRIVATE_NETWORKS=true or CONNECTOR_ALLOWED_NETWORKS)';
  return new ConnectorError(`refused by the network policy: ${shown}${reason}${hint}`, 'config_error', {
    code: NETWORK_POLICY_CODE,
  });
}
