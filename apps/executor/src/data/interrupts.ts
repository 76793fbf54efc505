/**
 * Interrupting a DuckDB connection until its work is over, and giving up on work an interrupt does not stop.
 *
 * DuckDB clears a pending interrupt when the next statement starts, so one interrupt landing between two statements
 * is lost and the next one runs to its end: the interrupt is repeated until the caller says the work has returned.
 * DuckDB looks for an interrupt between chunks of rows, not inside one function call, so a value whose computation
 * takes hours (nested lambdas over large lists) runs on however often it is interrupted. Such work is given up after
 * a grace (StoppableWork): its caller goes on, and the statement holds a core and a libuv thread until the process ends.
 */
import type { DuckDBConnection } from '@duckdb/node-api';

const REINTERRUPT_MS = 25;

/** Interrupts `connection` now and every 25 ms after; call the answer to stop. */
function keepInterrupting(connection: DuckDBConnection): () => void {
  connection.interrupt();
  const timer = setInterval(() => connection.interrupt(), REINTERRUPT_MS);
  return () => clearInterval(timer);
}

/** How long interrupted work may run on, and who is told when it is given up. */
export interface InterruptGrace {
  /** From the first interrupt (EXECUTOR_INTERRUPT_GRACE_MS). */
  graceMs: number;
  /**
   * Told once per statement given up (its connection stranded): only ending the process frees the core it holds, and
   * closing its connection or instance would block the event loop until it ends.
   */
  onStranded?(runId: string): void;
}

/** EXECUTOR_INTERRUPT_GRACE_MS's default. */
export const DEFAULT_INTERRUPT_GRACE_MS = 5000;

export const DEFAULT_INTERRUPT_GRACE: InterruptGrace = { graceMs: DEFAULT_INTERRUPT_GRACE_MS };

/** Interrupted work still running after its grace: its caller goes on without it. */
export class StrandedStatement extends Error {
  constructor(graceMs: number) {
    super(`its statement did not stop within ${graceMs / 1000} s of being interrupted`);
    this.name = 'StrandedStatement';
  }
}

/**
 * One piece of work on a connection that its caller may stop: {@link stop} interrupts until {@link end}, and
 * {@link givenUp} rejects with StrandedStatement once `graceMs` have passed since the first interrupt.
 */
export class StoppableWork {
  /** Never resolves; rejects when the work is given up. Race it with the work. */
  readonly givenUp: Promise<never>;
  private giveUp!: (err: StrandedStatement) => void;
  private stopInterrupting: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly connection: DuckDBConnection,
    private readonly graceMs: number,
  ) {
    this.givenUp = new Promise<never>((_, reject) => (this.giveUp = reject));
    // Rejected only while someone races it; never an unhandled rejection otherwise.
    this.givenUp.catch(() => undefined);
  }

  /**
   * The caller stopped the work (an abort listener). The grace runs whether or not a DuckDB statement is what the
   * work waits for: work that ignores its signal elsewhere as long (the connectors bound their own unwinding) is given
   * up the same way, at the cost of a needless restart.
   */
  readonly stop = (): void => {
    if (this.stopInterrupting) return;
    this.stopInterrupting = keepInterrupting(this.connection);
    this.timer = setTimeout(() => this.giveUp(new StrandedStatement(this.graceMs)), this.graceMs);
  };

  /** The work returned, or was given up: no more interrupts. */
  end(): void {
    this.stopInterrupting?.();
    clearTimeout(this.timer);
  }
}
