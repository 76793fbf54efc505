import { Counter, Registry } from 'prom-client';

/** Reports refused because their epoch is not the run's (`conduit_scheduler_run_reports_fenced_total` on /metrics). */
export class FencedReportsCounter {
  private readonly counter: Counter;

  /** Without a registry (tests of the RPC alone) the count is kept on a private one. */
  constructor(registry: Registry = new Registry()) {
    this.counter = new Counter({
      name: 'conduit_scheduler_run_reports_fenced_total',
      help: 'Run reports refused because another execution holds the run',
      registers: [registry],
    });
  }

  inc(): void {
    this.counter.inc();
  }
}
