import type { Job } from 'bullmq';
import { inSpan, SpanKind, SpanStatusCode, splitJobTrace } from '@conduit/service-kit';

/** What a run job's handling answers: its status is the span's. */
interface RunResult {
  status: string;
}

/**
 * Runs the handling of a run job in `run <id>` (kind consumer), a child of the trace its command carries (the
 * trigger's request), so one run is one trace; the node spans are its children. Hands the handler the command's
 * payload without the trace field.
 */
export function inRunSpan<R extends RunResult>(job: Job, handle: (payload: unknown) => Promise<R>): Promise<R> {
  const { payload, parent } = splitJobTrace(job.data);
  return inSpan(
    `run ${job.id ?? ''}`,
    SpanKind.CONSUMER,
    parent,
    async (span) => {
      span.setAttributes({ 'conduit.run.id': job.id ?? '', 'conduit.run.attempt': Math.max(1, job.attemptsStarted) });
      const result = await handle(payload);
      span.setAttribute('conduit.run.status', result.status);
      if (result.status === 'failed') span.setStatus({ code: SpanStatusCode.ERROR, message: 'run failed' });
      return result;
    },
    '@conduit/executor',
  );
}
