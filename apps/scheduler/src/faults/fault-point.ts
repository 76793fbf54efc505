/**
 * Test-only crash points (issue 16, R4): `SCHEDULER_FAULT_POINT` names a place where the scheduler kills itself with
 * SIGKILL, so a fault test can prove that a crash there loses nothing. Read once at start; the
 * configuration refuses it in production.
 */
export const FAULT_POINTS = ['after_run_commit'] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];

let armed: FaultPoint | undefined;

/** main.ts, at start. */
export function armFaultPoint(point: FaultPoint | undefined): void {
  armed = point;
}

/** Dies at once, as kill -9 would, when `point` is the armed one. */
export function reachFaultPoint(point: FaultPoint): void {
  if (armed === point) process.kill(process.pid, 'SIGKILL');
}
