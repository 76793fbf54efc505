import type { RunLogBatch } from '@conduit/contracts';
import { seqOf } from './run-log-seq.js';
import type { SqlRunner } from '../common/sql-runner.js';

/**
 * Stores batches in one statement; a line already stored (same run, attempt and n) is left as it is. Answers, per
 * batch, how many of its lines were new (a line in two batches counts for the first, as one after the other would).
 */
export async function insertRunLogBatches(run: SqlRunner, batches: readonly RunLogBatch[]): Promise<number[]> {
  const lines = batches.flatMap((b) => b.lines.map((l) => ({ b, l, seq: seqOf(b.attempt, l.n) })));
  const rows = await run<{ run_id: string; seq: string }>({
    text: `INSERT INTO run_logs (run_id, seq, tenant_id, job_id, attempt, n, ts, level, node_id, message)
     SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::int[], $6::int[], $7::timestamptz[],
                          $8::text[], $9::text[], $10::text[])
     ON CONFLICT (run_id, seq) DO NOTHING
     RETURNING run_id, seq`,
    values: [
      lines.map(({ b }) => b.run_id),
      lines.map(({ seq }) => seq),
      lines.map(({ b }) => b.tenant_id),
      lines.map(({ b }) => b.job_id),
      lines.map(({ b }) => b.attempt),
      lines.map(({ l }) => l.n),
      lines.map(({ l }) => l.ts),
      lines.map(({ l }) => l.level),
      lines.map(({ l }) => l.node_id),
      lines.map(({ l }) => l.message),
    ],
  });
  const stored = new Set(rows.map((r) => `${r.run_id} ${r.seq}`));
  return batches.map((b) => b.lines.filter((l) => stored.delete(`${b.run_id} ${seqOf(b.attempt, l.n)}`)).length);
}
