/**
 * The first two Test Connection checks of every network connector: `resolve` (every address of the host) and
 * `network_policy` (each of them allowed, none the platform's own service). A refused target stops there, before any
 * connection is tried, so an open and a closed port answer the same message (no port scanning through tests).
 */
import type { CheckStep } from '../connection-checks.js';
import { assertAddressesAllowed, resolveAddresses, type NetworkTarget } from './target-check.js';

export interface ResolvedTarget {
  /** The checked address later steps connect to; the configured host until `resolve` ran. */
  address: string;
}

export function policySteps(target: NetworkTarget, resolved: ResolvedTarget): CheckStep[] {
  let addresses: string[] = [];
  return [
    {
      name: 'resolve',
      async run() {
        addresses = await resolveAddresses(target.host);
        resolved.address = addresses[0] ?? target.host;
        const shown = addresses.join(', ');
        return shown === target.host.replace(/^\[|\]$/g, '')
          ? `${shown} is an IP address`
          : `${target.host} resolves to ${shown}`;
      },
    },
    {
      name: 'network_policy',
      async run() {
        await assertAddressesAllowed(target, addresses);
        return `${addresses.join(', ')} may be reached`;
      },
    },
  ];
}
