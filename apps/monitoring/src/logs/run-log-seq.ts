/**
 * A line's `seq`: `(attempt - 1) * 1e9 + n + 1`. It comes from the line itself, not from arrival order, so a batch
 * delivered twice lands on the same rows, lines sort by attempt and then by their order within it, and a client that
 * resumes after seq S (Last-Event-ID) finds exactly the lines it has not seen. An attempt holds at most 1e9 lines.
 */
export const LINES_PER_ATTEMPT = 1_000_000_000;

export function seqOf(attempt: number, n: number): number {
  return (attempt - 1) * LINES_PER_ATTEMPT + n + 1;
}

export interface SeqLine {
  seq: number;
  n: number;
}

/**
 * The lines after `afterSeq` that can be shown without a gap: each follows the previous one, or opens an attempt
 * (n = 0). Batches of one attempt may commit out of order across workers; a live stream stops at a hole and picks
 * the missing lines up on its next poll, so it never skips them.
 */
export function gapFreePrefix<T extends SeqLine>(lines: readonly T[], afterSeq: number): T[] {
  const out: T[] = [];
  let previous = afterSeq;
  for (const line of lines) {
    if (line.seq !== previous + 1 && line.n !== 0) break;
    out.push(line);
    previous = line.seq;
  }
  return out;
}
