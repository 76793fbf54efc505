import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { RunLogBatch } from '@conduit/contracts';
import { GroupCommit, failingAlone } from '@conduit/service-kit';
import { insertRunLogBatches } from './run-log-writer.js';
import { pooledStatements } from '../common/sql-runner.js';

/** Log batches stored in one statement at most; the logs worker takes as many jobs at once, so a burst fills one. */
export const MAX_LOG_BATCHES = 50;

/**
 * Stores the log batches that arrive while a statement runs together in the next one (group commit), instead of a
 * statement (and a commit) per batch. A statement that fails is run again batch by batch, so one bad batch fails alone.
 */
@Injectable()
export class RunLogStore {
  private readonly commits: GroupCommit<RunLogBatch, number | Error>;

  constructor(ds: DataSource) {
    const statements = pooledStatements(ds);
    this.commits = new GroupCommit(
      failingAlone((batches: RunLogBatch[]) => insertRunLogBatches(statements, batches)),
      MAX_LOG_BATCHES,
    );
  }

  /** Stores one batch; answers how many of its lines were new. */
  async store(batch: RunLogBatch): Promise<number> {
    const stored = await this.commits.submit(batch);
    if (stored instanceof Error) throw stored;
    return stored;
  }
}
