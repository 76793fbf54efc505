import type { DataSource, QueryRunner } from 'typeorm';
import type { Logger } from 'pino';
import { schemaOf } from '../database.js';

/**
 * What a service re-seals: the rows of one table holding sealed secrets. Values that are not sealed as now (an older
 * format, a previous key, an older binding) are opened and sealed again by `reseal`, which knows the binding.
 */
export interface ResealPlan<Row extends { id: string }> {
  /** The table's name, for the lock and the outcome (e.g. `connectors`). */
  table: string;
  /** Up to `limit` rows with an id after `afterId` (in id order) that may hold a value to re-seal. */
  select(runner: QueryRunner, afterId: string, limit: number): Promise<Row[]>;
  /** The row's values sealed anew (`next` undefined when none changed); `unreadable` counts values that did not open. */
  reseal(row: Row): { next?: Row; resealed: number; unreadable: number };
  /** Writes `next` only if the row still holds what `row` read (another write wins); true when it was written. */
  write(runner: QueryRunner, row: Row, next: Row): Promise<boolean>;
}

export interface ResealOutcome {
  table: string;
  /** Values sealed again. */
  resealed: number;
  /** Values that did not open (left as they are: the resource's owner must send them again). */
  unreadable: number;
  /** A few ids of rows with such values, for the operator; never a value. */
  unreadableIds: string[];
  /** Rows written by someone else between the read and the write (they hold a value sealed as now). */
  changedMeanwhile: number;
  /** Another replica held the lock: it re-seals, this one did nothing. */
  skipped: boolean;
}

const BATCH = 200;
const LISTED_IDS = 20;

/**
 * Seals again every stored secret of a table that is not sealed as now (after an upgrade of the format, or with a
 * new SECRETS_KEY during a rotation). Idempotent (a current value is never selected again), resumable (each row is
 * its own write, so a run that stops leaves only the rest), safe beside running replicas (a compare-and-set write;
 * one replica at a time under a session advisory lock, the others skip). Nothing here sees a plaintext.
 */
export async function resealRows<Row extends { id: string }>(
  ds: DataSource,
  plan: ResealPlan<Row>,
): Promise<ResealOutcome> {
  if (!ds.isInitialized) await ds.initialize();
  const outcome: ResealOutcome = {
    table: plan.table,
    resealed: 0,
    unreadable: 0,
    unreadableIds: [],
    changedMeanwhile: 0,
    skipped: false,
  };
  const lockKey = `conduit.reseal:${schemaOf(ds)}.${plan.table}`;
  const runner = ds.createQueryRunner('master');
  try {
    const [lock] = (await runner.query('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [lockKey])) as {
      ok: boolean;
    }[];
    if (!lock?.ok) return { ...outcome, skipped: true };
    try {
      let after = '';
      for (;;) {
        const rows = await plan.select(runner, after, BATCH);
        for (const row of rows) {
          const { next, resealed, unreadable } = plan.reseal(row);
          if (unreadable > 0) {
            outcome.unreadable += unreadable;
            if (outcome.unreadableIds.length < LISTED_IDS) outcome.unreadableIds.push(row.id);
          }
          if (next === undefined) continue;
          if (await plan.write(runner, row, next)) outcome.resealed += resealed;
          else outcome.changedMeanwhile += 1;
        }
        const last = rows.at(-1);
        if (rows.length < BATCH || last === undefined) return outcome;
        after = last.id;
      }
    } finally {
      // If this fails the connection is broken, and PostgreSQL drops a dead session's locks itself.
      await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [lockKey]).catch(() => undefined);
    }
  } finally {
    await runner.release();
  }
}

/** One line per table: how many values were sealed again and which rows hold values that do not open. */
export function logReseal(logger: Logger, o: ResealOutcome): void {
  const fields = {
    table: o.table,
    resealed: o.resealed,
    unreadable: o.unreadable,
    changed_meanwhile: o.changedMeanwhile,
  };
  if (o.skipped) logger.info({ table: o.table }, 'secrets re-seal: another replica is re-sealing');
  else if (o.unreadable > 0) {
    logger.warn(
      { ...fields, unreadable_ids: o.unreadableIds },
      'secrets re-seal: some stored secrets do not open (their owners must send them again)',
    );
  } else
    logger.info(
      fields,
      o.resealed > 0
        ? 'secrets re-sealed under the current key'
        : 'secrets: every stored secret is sealed under the current key',
    );
}
