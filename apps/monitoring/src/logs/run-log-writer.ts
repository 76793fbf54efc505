import type { EntityManager } from 'typeorm';
import type { RunLogBatch } from '@conduit/contracts';
import { seqOf } from './run-log-seq.js';

/** Stores a batch in one statement; a line already stored (same run, attempt and n) is left as it is. Answers how many were new. */
export async function insertRunLogBatch(m: EntityManager, batch: RunLogBatch): Promise<number> {
  const rows = await m.query<unknown[]>(
    `INSERT INTO run_logs (run_id, seq, tenant_id, job_id, attempt, n, ts, level, node_id, message)
     SELECT $1, seq, $2, $3, $4, n, ts, level, node_id, message
       FROM unnest($5::bigint[], $6::int[], $7::timestamptz[], $8::text[], $9::text[], $10::text[]) AS l(seq, n, ts, level, node_id, message)
     ON CONFLICT (run_id, seq) DO NOTHING
     RETURNING seq`,
    [
      batch.run_id,
      batch.tenant_id,
      batch.job_id,
      batch.attempt,
      batch.lines.map((l) => seqOf(batch.attempt, l.n)),
      batch.lines.map((l) => l.n),
      batch.lines.map((l) => l.ts),
      batch.lines.map((l) => l.level),
      batch.lines.map((l) => l.node_id),
      batch.lines.map((l) => l.message),
    ],
  );
  return rows.length;
}
