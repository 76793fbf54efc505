import { describe, expect, it } from '@jest/globals';
import { SendSlots } from './send-slots.js';

/** Whether a take still waits a moment (20 ms) on: proving a wait takes waiting. */
async function stillWaiting(take: Promise<number>): Promise<boolean> {
  const waited = Symbol('waited');
  const first = await Promise.race([take, new Promise((r) => setTimeout(() => r(waited), 20))]);
  return first === waited;
}

describe('SendSlots', () => {
  it('grants what is free, up to the size', async () => {
    const slots = new SendSlots(3, 1000);
    expect(await slots.take(2)).toBe(2);
    expect(await slots.take(5)).toBe(1);
  });

  it('waits for a slot given back rather than answering none', async () => {
    const slots = new SendSlots(1, 5000);
    expect(await slots.take(1)).toBe(1);
    const waiting = slots.take(1);
    setTimeout(() => slots.give(1), 20);
    const started = Date.now();
    expect(await waiting).toBe(1);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('waits until as many as it wants are free, then takes them together', async () => {
    const slots = new SendSlots(8, 5000);
    expect(await slots.take(7)).toBe(7);
    const waiting = slots.take(3);
    slots.give(1);
    expect(await stillWaiting(waiting)).toBe(true); // two free: not yet enough
    slots.give(1);
    expect(await waiting).toBe(3);
  });

  it('waits for half the slots at most, and then takes every free one it wants', async () => {
    const slots = new SendSlots(8, 5000);
    expect(await slots.take(8)).toBe(8);
    const waiting = slots.take(8);
    slots.give(3);
    expect(await stillWaiting(waiting)).toBe(true); // three free: fewer than half
    slots.give(2);
    expect(await waiting).toBe(5);
    expect(slots.enough(8)).toBe(4);
    expect(slots.enough(2)).toBe(2);
  });

  it('takes what is free once the wait is over', async () => {
    const slots = new SendSlots(4, 30);
    expect(await slots.take(3)).toBe(3);
    expect(await slots.take(3)).toBe(1);
  });

  it('answers none once the wait is over and every slot is still taken', async () => {
    const slots = new SendSlots(1, 30);
    expect(await slots.take(1)).toBe(1);
    expect(await slots.take(1)).toBe(0);
  });
});
