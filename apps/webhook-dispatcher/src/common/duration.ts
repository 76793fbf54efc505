const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^(\d+)(ms|s|m|h|d)$/;

/** `200ms`, `5s`, `5m`, `2h`, `5d` as milliseconds; undefined for anything else. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  const [, amount, unit] = match;
  return Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
}

/** A comma-separated list of durations (`5s,5m,30m`); undefined when one of them is not a duration. */
export function parseDurationList(text: string): number[] | undefined {
  const parts = text.split(',').map((p) => parseDuration(p));
  return parts.every((p): p is number => p !== undefined) ? parts : undefined;
}
