// A run read again every second until it has ended, so the graph's colours follow its nodes.
import { isFinalRunStatus, type ConduitClient, type Run } from '@conduit/sdk';
import { useEffect, useState } from 'react';

export const RUN_POLL_MS = 1000;

export function useLiveRun(
  client: ConduitClient,
  jobId: string,
  runId: string,
): { run: Run | undefined; error: unknown; replace: (run: Run) => void } {
  const [run, setRun] = useState<Run>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const read = async () => {
      try {
        const latest = await client.runs.get(runId, { jobId });
        if (stopped) return;
        setRun(latest);
        setError(undefined);
        if (isFinalRunStatus(latest.status)) return;
      } catch (err) {
        if (stopped) return;
        setError(err);
      }
      timer = setTimeout(() => void read(), RUN_POLL_MS);
    };
    void read();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [client, jobId, runId]);
  return { run, error, replace: setRun };
}
