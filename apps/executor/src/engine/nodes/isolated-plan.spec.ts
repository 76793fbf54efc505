// The executor binds at most two checked statements at once; the others wait their turn, none is lost.
import { withPlanSlot } from './isolated-plan.js';

it('runs at most two plans at once, each of the others as one ends, and gives a slot back on failure', async () => {
  let running = 0;
  let most = 0;
  const ends: (() => void)[] = [];
  const plan = (fail = false) =>
    withPlanSlot(async () => {
      running += 1;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => ends.push(resolve));
      running -= 1;
      if (fail) throw new Error('bind failed');
      return 'bound';
    });
  const results = [plan(true), plan(), plan(), plan()].map((p) => p.catch((err: Error) => err.message));
  // Ends each plan as soon as it has started, until all have.
  for (let ended = 0; ended < 4; ended++) {
    while (ends.length === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(running).toBeLessThanOrEqual(2);
    ends.shift()!();
  }
  expect(await Promise.all(results)).toEqual(['bind failed', 'bound', 'bound', 'bound']);
  expect(most).toBe(2);
});

it('stops waiting for a slot when its signal aborts, and hands the slot on to the next waiter', async () => {
  const ends: (() => void)[] = [];
  const hold = () => withPlanSlot(() => new Promise<string>((resolve) => ends.push(() => resolve('bound'))));
  const held = [hold(), hold()];
  const controller = new AbortController();
  const stopped = withPlanSlot(async () => 'never', controller.signal);
  const next = withPlanSlot(async () => 'next');
  controller.abort(new Error('node stopped'));
  await expect(stopped).rejects.toThrow('node stopped');
  while (ends.length < 2) await new Promise((resolve) => setImmediate(resolve));
  ends.shift()!();
  await expect(next).resolves.toBe('next');
  ends.shift()!();
  expect(await Promise.all(held)).toEqual(['bound', 'bound']);
  // An already aborted signal does not wait at all when the slots are full.
  const full = [hold(), hold()];
  await expect(withPlanSlot(async () => 'never', AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
  while (ends.length < 2) await new Promise((resolve) => setImmediate(resolve));
  ends.splice(0).forEach((end) => end());
  await Promise.all(full);
});
