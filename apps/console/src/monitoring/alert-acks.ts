// Acknowledged alerts, kept per browser: the API has no acknowledge operation (alerts are read-only), so an
// acknowledgement is the user's note to self in localStorage, keyed by tenant, never sent anywhere.
import type { Alert } from '@conduit/sdk';

/** Alert id → its occurrences when acknowledged; more occurrences since means it happened again. */
export type AlertAcks = Readonly<Record<string, number>>;

const itemFor = (tenant: string) => `conduit.alertAcks.${tenant}`;

export function loadAlertAcks(tenant: string, storage: Storage = localStorage): AlertAcks {
  try {
    const parsed: unknown = JSON.parse(storage.getItem(itemFor(tenant)) ?? '{}');
    if (typeof parsed !== 'object' || parsed === null) return {};
    // A hand-edited or older entry must not break the page: keep only well-formed acknowledgements.
    return Object.fromEntries(Object.entries(parsed).filter(([, seen]) => typeof seen === 'number'));
  } catch {
    return {};
  }
}

export function saveAlertAcks(tenant: string, acks: AlertAcks, storage: Storage = localStorage): void {
  if (Object.keys(acks).length === 0) storage.removeItem(itemFor(tenant));
  else storage.setItem(itemFor(tenant), JSON.stringify(acks));
}

/**
 * The acknowledgements of alerts still open; the others can never show again (a resolved alert stays resolved).
 * Only a complete list of the open alerts can tell which are closed: while `open` is its first page, an
 * acknowledgement of an alert beyond it is kept.
 */
export function keepOpen(acks: AlertAcks, open: readonly Alert[], complete: boolean): AlertAcks {
  if (!complete) return acks;
  return Object.fromEntries(open.filter((a) => a.id in acks).map((a) => [a.id, acks[a.id]!]));
}

export interface SortedAlerts {
  /** Not acknowledged, or acknowledged and happened again since (`again`). */
  listed: { alert: Alert; again: boolean }[];
  acknowledged: Alert[];
}

export function sortByAck(alerts: readonly Alert[], acks: AlertAcks): SortedAlerts {
  const sorted: SortedAlerts = { listed: [], acknowledged: [] };
  for (const alert of alerts) {
    const seen = acks[alert.id];
    if (seen === undefined) sorted.listed.push({ alert, again: false });
    else if (alert.occurrences > seen) sorted.listed.push({ alert, again: true });
    else sorted.acknowledged.push(alert);
  }
  return sorted;
}
