// The live run log (GET .../logs with Accept: text/event-stream): one event per line (`id` = seq), `event: end`
// when the run is over, `event: error` with a problem document when the credential stops being valid.
import type { Client } from 'openapi-fetch';
import type { paths } from '../generated/api.js';
import { ConduitApiError, apiErrorOf } from '../errors.js';
import { readServerSentEvents } from '../sse.js';
import type { Problem, QueryOf, RunLogLine } from '../types.js';
import { defined } from '../unwrap.js';

export interface LogStreamOptions {
  /** Start after this line (`seq`), as a reconnect does; default from the first line. */
  afterSeq?: number;
  level?: QueryOf<'getRunLogs'>['level'];
  nodeId?: string;
  /** Reconnects in a row without a new line before giving up. Default 5. */
  maxReconnects?: number;
  signal?: AbortSignal;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A dropped connection or a stream cut short: worth reconnecting. Any answer with a status is not. */
function isDroppedStream(err: unknown): boolean {
  return !(err instanceof ConduitApiError) && !(err instanceof SyntaxError);
}

export async function* streamRunLogs(
  raw: Client<paths>,
  jobId: string,
  runId: string,
  options: LogStreamOptions,
): AsyncGenerator<RunLogLine, void, undefined> {
  let afterSeq = options.afterSeq;
  let reconnects = 0;
  const maxReconnects = options.maxReconnects ?? 5;
  for (;;) {
    try {
      const { response, error } = await raw.GET('/v2/jobs/{job_id}/runs/{run_id}/logs', {
        params: {
          path: { job_id: jobId, run_id: runId },
          query: defined({ level: options.level, node_id: options.nodeId }),
          ...(afterSeq !== undefined ? { header: { 'Last-Event-ID': String(afterSeq) } } : {}),
        },
        headers: { accept: 'text/event-stream' },
        parseAs: 'stream',
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (!response.ok || !response.body) throw apiErrorOf(response, error);
      for await (const event of readServerSentEvents(response.body)) {
        if (event.event === 'end') return;
        if (event.event === 'error') throw new ConduitApiError(JSON.parse(event.data) as Problem);
        if (event.event !== 'message') continue;
        const line = JSON.parse(event.data) as RunLogLine;
        afterSeq = line.seq;
        reconnects = 0;
        yield line;
      }
      // The stream closed without `end` (a gateway restarted, a proxy cut it): resume below.
    } catch (err) {
      if (options.signal?.aborted || !isDroppedStream(err)) throw err;
      if (reconnects >= maxReconnects) throw err;
    }
    if (++reconnects > maxReconnects)
      throw new Error(`the log stream of run ${runId} closed ${reconnects} times in a row without ending`);
    await sleep(Math.min(5000, 250 * 2 ** (reconnects - 1)));
  }
}
