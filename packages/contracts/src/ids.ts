import { getRandomValues } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/** Type prefixes of every identifier (api.md, Conventions). Clients must not parse ids; the prefix is for humans. */
export const ID_PREFIXES = {
  project: 'prj',
  pipeline: 'pln',
  connector: 'con',
  job: 'job',
  run: 'run',
  webhook: 'whk',
  delivery: 'dlv',
  alert: 'alt',
  event: 'evt',
  apiKey: 'key',
  tenant: 'tnt',
  request: 'req',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;
export type IdPrefix = (typeof ID_PREFIXES)[IdKind];

const randomPool = new Uint8Array(4096);
let randomAt = randomPool.length;

/**
 * ulid's default PRNG asks the OS for one byte per character (16 calls an id, a measurable share of the
 * gateway's time per request, whose request id is one); this draws the same CSPRNG bytes from a pool.
 */
function pooledRandom(): number {
  if (randomAt === randomPool.length) {
    getRandomValues(randomPool);
    randomAt = 0;
  }
  return (randomPool[randomAt++] as number) / 256;
}

// Monotonic within a process, so ids created in the same millisecond still sort in creation order.
const nextUlid = monotonicFactory(pooledRandom);

/** A new time-ordered id such as `prj_01JD3V6Y9ZQ8W1S3X5C7E9G2HK`. */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${nextUlid()}`;
}

const ULID_BODY = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** The pattern of a well-formed id of one kind (its prefix and a ULID), as the OpenAPI document shows it. */
export function idPattern(kind: IdKind): string {
  return `^${ID_PREFIXES[kind]}_${ULID_BODY.source.slice(1, -1)}$`;
}

/** True when `value` is a well-formed id of that kind; a malformed path id is answered 404, never 500. */
export function isId(kind: IdKind, value: unknown): value is string {
  if (typeof value !== 'string' || value.length !== ID_PREFIXES[kind].length + 27) return false;
  return value.startsWith(`${ID_PREFIXES[kind]}_`) && ULID_BODY.test(value.slice(-26));
}
