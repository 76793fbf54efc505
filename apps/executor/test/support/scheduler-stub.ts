// A real RedisStreamsServer for service 'scheduler' answering only the fencing calls (claim, renew, release), with the
// scheduler's rules kept in memory: one live claim at a time, each claim a new epoch, a run over refuses claims.
// The scheduler's own tests prove its compare-and-set on PostgreSQL (apps/scheduler/test/claims.test.ts).
import 'reflect-metadata';
import { Controller, Module, type DynamicModule, type INestMicroservice } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { startTestMicroservice } from '@conduit/testing';
import { handleRpc, type RunClaim, type RunNode } from '@conduit/contracts';

interface StubRun {
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';
  epoch: number;
  holder: string | null;
  leaseUntil: number;
  nodes: RunNode[];
}

export interface SchedulerStubData {
  runs: Map<string, StubRun>;
  /** Every claim answered, in order. */
  claims: { run_id: string; attempt: number; executor_id: string; answer: RunClaim }[];
  renewals: { run_id: string; epoch: number; renewed: boolean }[];
}

export function newSchedulerStubData(): SchedulerStubData {
  return { runs: new Map(), claims: [], renewals: [] };
}

/** A run the stub knows: queued unless told otherwise. */
export function stubRun(data: SchedulerStubData, runId: string, run: Partial<StubRun> = {}): void {
  data.runs.set(runId, { status: 'queued', epoch: 0, holder: null, leaseUntil: 0, nodes: [], ...run });
}

@Controller()
class FencingController {
  static data: SchedulerStubData;

  @MessagePattern('scheduler.runs.claim')
  claim(@Payload() message: unknown) {
    return handleRpc(
      'scheduler.runs.claim',
      message,
      async (d) => {
        const data = FencingController.data;
        // A run the test did not set up is one just queued.
        if (!data.runs.has(d.run_id)) stubRun(data, d.run_id);
        const run = data.runs.get(d.run_id);
        // As the scheduler: the holding executor is granted again whatever its attempt (run-claims.ts).
        const holder = d.executor_id;
        let answer: RunClaim;
        if (!run) answer = { granted: false, reason: 'unknown_run', status: null, retry_in_ms: null };
        else if (!['queued', 'running'].includes(run.status))
          answer = { granted: false, reason: 'finished', status: run.status, retry_in_ms: null };
        else if (run.leaseUntil > Date.now() && run.holder !== holder)
          answer = { granted: false, reason: 'held', status: run.status, retry_in_ms: run.leaseUntil - Date.now() };
        else {
          Object.assign(run, { status: 'running', epoch: run.epoch + 1, holder, leaseUntil: Date.now() + d.lease_ms });
          answer = { granted: true, epoch: run.epoch, nodes: run.nodes };
        }
        data.claims.push({ run_id: d.run_id, attempt: d.attempt, executor_id: d.executor_id, answer });
        return answer;
      },
      () => undefined,
    );
  }

  @MessagePattern('scheduler.runs.renew')
  renew(@Payload() message: unknown) {
    return handleRpc(
      'scheduler.runs.renew',
      message,
      async (d) => {
        const data = FencingController.data;
        const run = data.runs.get(d.run_id);
        const renewed = !!run && run.status === 'running' && run.epoch === d.epoch;
        if (renewed) run.leaseUntil = Date.now() + d.lease_ms;
        data.renewals.push({ run_id: d.run_id, epoch: d.epoch, renewed });
        return { renewed };
      },
      () => undefined,
    );
  }

  @MessagePattern('scheduler.runs.release')
  release(@Payload() message: unknown) {
    return handleRpc(
      'scheduler.runs.release',
      message,
      async (d) => {
        const run = FencingController.data.runs.get(d.run_id);
        const released = !!run && run.status === 'running' && run.epoch === d.epoch;
        if (released) run.leaseUntil = 0;
        return { released };
      },
      () => undefined,
    );
  }
}

@Module({})
class SchedulerStubModule {
  static forRoot(): DynamicModule {
    return { module: SchedulerStubModule, controllers: [FencingController] };
  }
}

export async function startSchedulerStub(prefix: string, data: SchedulerStubData): Promise<INestMicroservice> {
  FencingController.data = data;
  return startTestMicroservice(SchedulerStubModule.forRoot(), { service: 'scheduler', prefix });
}
