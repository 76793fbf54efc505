/**
 * The bytes the typed reads of one run bring into its scratch folder, counted against the run's limit
 * (TransferBuffers.scratchLimitBytes, from the executor's RUN_SCRATCH_LIMIT) while they stream in: a tenant's endless
 * object or paging fails its read at the limit instead of filling the executor's spill volume (and getting the pod,
 * with every tenant's runs on it, evicted). Reads of one run at once (parallel nodes) share its limit, so the counts
 * are kept per scratch folder, which is the run's own.
 */
import { Transform } from 'node:stream';
import { ConnectorError } from '../connector-error.js';
import { DEFAULT_SCRATCH_LIMIT_BYTES } from '../transfer-buffers.js';

/** Bytes held now by the reads in flight, per run scratch folder; an entry goes when its reads have ended. */
const heldByScratchDir = new Map<string, number>();

/** What one read has brought into the run's scratch folder, and may still bring. */
export class ScratchAllowance {
  private held = 0;

  constructor(
    private readonly scratchDir: string,
    readonly limitBytes: number = DEFAULT_SCRATCH_LIMIT_BYTES,
  ) {}

  /** Refuses, before any byte is written, a file of `bytes` that would take the run's reads past the limit. */
  ensureRoom(bytes: number): void {
    if ((heldByScratchDir.get(this.scratchDir) ?? 0) + bytes > this.limitBytes)
      throw scratchLimitError(this.limitBytes);
  }

  /** Counts `bytes` about to be written; refused (nothing counted) when they would pass the run's limit. */
  take(bytes: number): void {
    this.ensureRoom(bytes);
    heldByScratchDir.set(this.scratchDir, (heldByScratchDir.get(this.scratchDir) ?? 0) + bytes);
    this.held += bytes;
  }

  /** A pass-through stream that takes every chunk on its way to a scratch file, and fails the pipeline past the limit. */
  counter(): Transform {
    return new Transform({
      transform: (chunk: Buffer, _encoding, done) => {
        try {
          this.take(chunk.length);
          done(null, chunk);
        } catch (err) {
          done(err as Error);
        }
      },
    });
  }

  /** Gives back what this read took, once its files are removed. */
  release(): void {
    const left = (heldByScratchDir.get(this.scratchDir) ?? 0) - this.held;
    if (left > 0) heldByScratchDir.set(this.scratchDir, left);
    else heldByScratchDir.delete(this.scratchDir);
    this.held = 0;
  }
}

/** A config_error naming the limit and its setting (never a path: the folder is the executor's, not the tenant's). */
export function scratchLimitError(limitBytes: number): ConnectorError {
  return new ConnectorError(
    `the read brings more than ${sizeText(limitBytes)} into the run's scratch folder, the most a run's reads may hold ` +
      'there at once (RUN_SCRATCH_LIMIT): read less (a narrower path or prefix, fewer pages) or raise the limit',
    'config_error',
    { code: 'scratch_limit' },
  );
}

/** A size spelled as RUN_SCRATCH_LIMIT takes it (`8GiB`, `512MiB`), in the largest unit that divides it. */
function sizeText(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return `${bytes} bytes`;
}
