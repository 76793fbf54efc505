/**
 * Test-only crash points (issue 16, R4): `SCHEDULER_FAULT_POINT` names a place where the scheduler kills itself with
 * SIGKILL, so a fault test can prove that a crash there loses nothing. Read once at start; never armed in production.
 */
export const FAULT_POINTS = ['after_run_commit'] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];

let armed: FaultPoint | undefined;

/** main.ts, at start: arms the point unless NODE_ENV is production. */
export function armFaultPoint(point: FaultPoint | undefined, nodeEnv: string | undefined): void {
  armed = nodeEnv === 'production' ? undefined : point;
}

/** Dies at once, as kill -9 would, when `point` is the armed one. */
export function reachFaultPoint(point: FaultPoint): void {
  if (armed === point) process.kill(process.pid, 'SIGKILL');
}
