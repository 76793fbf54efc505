/**
 * A DuckDB file worker (workers.ts): does one piece of the duckdb connector's work on a tenant's file at a time, with
 * the functions the driver used to call in its own process, and answers it. It runs under a data-size limit set by its
 * parent; work that does not stop when asked is ended by the parent killing this process. It exits when its parent
 * goes.
 */
import { ConnectorError } from '../../connector-error.js';
import type { ReadRequest } from '../../types.js';
import { classifyDuckdbError } from '../database.js';
import { executeDuckdb } from '../execute.js';
import { readDuckdb } from '../read.js';
import { copyReadToParquet } from '../read-into-table.js';
import { openFile } from '../test-connection.js';
import { loadStagedIntoFile } from '../write.js';
import { loadParquetIntoFile } from '../write-from-table.js';
import { isToWorker, type FileWork, type FromWorker } from './messages.js';

interface Current {
  controller: AbortController;
  /** Resolves when the parent asks for the next batch of a row read. */
  more: (() => void) | null;
  /** The parent's `more` came before the wait for it. */
  moreAsked: boolean;
}

let current: Current | null = null;

const send = (message: FromWorker): Promise<void> =>
  new Promise((resolve) => {
    if (!process.send) resolve();
    else process.send(message, undefined, undefined, () => resolve());
  });

/** Waits for the parent's `more` (or the work's abort). */
const more = (work: Current): Promise<void> =>
  new Promise((resolve) => {
    if (work.controller.signal.aborted || work.moreAsked) {
      work.moreAsked = false;
      resolve();
    } else
      work.more = () => {
        work.more = null;
        resolve();
      };
  });

async function perform(work: FileWork, self: Current): Promise<unknown> {
  const { signal } = self.controller;
  const { cfg, tenantId, limits } = work;
  const request = { tenantId, duckdbLimits: limits, signal };
  switch (work.op) {
    case 'read': {
      const req: ReadRequest = { ...work.read, ...request };
      for await (const rows of readDuckdb(cfg, req)) {
        await send({ type: 'batch', rows });
        await more(self);
        signal.throwIfAborted();
      }
      return null;
    }
    case 'read-parquet':
      return copyReadToParquet(cfg, { ...work.read, ...request }, work.file);
    case 'load-parquet':
      return loadParquetIntoFile(cfg, { ...work.write, ...request }, work.columns, work.file);
    case 'load-staged':
      await loadStagedIntoFile(cfg, { ...work.write, ...request }, work.staged, work.hasRows);
      return null;
    case 'execute':
      return executeDuckdb(cfg, work.sql, request);
    case 'open':
      return openFile(cfg, tenantId, signal);
  }
}

function start(work: FileWork): void {
  const self: Current = { controller: new AbortController(), more: null, moreAsked: false };
  current = self;
  self.controller.signal.addEventListener('abort', () => self.more?.(), { once: true });
  // The data root is the parent's at the call: the child has no environment of its own.
  process.env['CONNECTOR_DATA_ROOT'] = work.dataRoot;
  perform(work, self).then(
    (result) => {
      current = null;
      void send({ type: 'done', result: result ?? null });
    },
    (err: unknown) => {
      current = null;
      const { error_class, message } = classifyDuckdbError(err);
      void send({ type: 'failed', message, error_class, code: err instanceof ConnectorError ? err.code : undefined });
    },
  );
}

process.on('message', (message: unknown) => {
  if (!isToWorker(message)) return;
  if (message.type === 'work') {
    if (!current) start(message.work);
  } else if (message.type === 'more') {
    if (current?.more) current.more();
    else if (current) current.moreAsked = true;
  } else {
    current?.controller.abort(new ConnectorError('stopped', 'transient_error'));
  }
});
process.on('disconnect', () => process.exit(0));
