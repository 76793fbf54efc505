import { getRandomValues } from 'node:crypto';
import { ID_PREFIXES, type IdKind } from '@conduit/contracts';
import { monotonicFactory } from 'ulid';

// The generator lives here, not in @conduit/contracts, which every process loads and which imports zod alone; the
// prefixes and the id format stay there.

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
