/**
 * Slots for the file workers' work (workers.ts): how many work at once in a process, and for one tenant. A call past
 * either waits for one to finish, the longest waiting first among those that may go.
 */

/**
 * Workers at work at once in a process, and for one tenant: a call past either waits for one to finish. Each holds
 * up to its data limit, so these bound what the duckdb connector can take of an executor (docs/operations.md), and
 * one tenant's slow statements leave the other slots to the rest.
 */
const MAX_WORKING = 4;
const MAX_WORKING_PER_TENANT = 2;
interface Waiter {
  tenant: string;
  grant: () => void;
}

let working = 0;
const workingByTenant = new Map<string, number>();
const waiters: Waiter[] = [];

const mayWork = (tenant: string): boolean =>
  working < MAX_WORKING && (workingByTenant.get(tenant) ?? 0) < MAX_WORKING_PER_TENANT;

function startWorking(tenant: string): void {
  working += 1;
  workingByTenant.set(tenant, (workingByTenant.get(tenant) ?? 0) + 1);
}

export function stopWorking(tenant: string): void {
  working -= 1;
  const left = (workingByTenant.get(tenant) ?? 1) - 1;
  if (left > 0) workingByTenant.set(tenant, left);
  else workingByTenant.delete(tenant);
  // The longest waiting call that may work now goes next.
  const next = waiters.findIndex((w) => mayWork(w.tenant));
  if (next >= 0) waiters.splice(next, 1)[0]!.grant();
}

/** A slot to work in for `tenant`, waited for in turn; throws `signal`'s reason when it aborts first. */
export async function takeSlot(tenant: string, signal: AbortSignal | undefined): Promise<void> {
  // Every waiter left may not work yet (a freed slot goes to the first that may), so a call that may goes first.
  if (mayWork(tenant)) {
    startWorking(tenant);
    return;
  }
  signal?.throwIfAborted();
  await new Promise<void>((resolve, reject) => {
    const waiter: Waiter = {
      tenant,
      grant: () => {
        signal?.removeEventListener('abort', onAbort);
        startWorking(tenant);
        resolve();
      },
    };
    const onAbort = () => {
      waiters.splice(waiters.indexOf(waiter), 1);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    waiters.push(waiter);
  });
}

/** How many workers work for `tenant` now (what a test waits on). */
export const workingFor = (tenant: string): number => workingByTenant.get(tenant) ?? 0;
