import type { EntityManager } from 'typeorm';

export interface RunFactRow {
  run_id: string;
  tenant_id: string;
  job_id: string;
  status: string;
  updated_at: Date;
}

/** The tenant's run, only when it belongs to that job (another tenant's run, or another job's, is not found). */
export async function findRunFact(
  m: EntityManager,
  tenantId: string,
  jobId: string,
  runId: string,
): Promise<RunFactRow | undefined> {
  const rows = await m.query<RunFactRow[]>(
    `SELECT run_id, tenant_id, job_id, status, updated_at FROM run_facts WHERE run_id = $1 AND tenant_id = $2 AND job_id = $3`,
    [runId, tenantId, jobId],
  );
  return rows[0];
}
