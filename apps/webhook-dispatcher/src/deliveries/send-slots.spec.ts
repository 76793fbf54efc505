import { describe, expect, it } from '@jest/globals';
import { SendSlots } from './send-slots.js';

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

  it('answers none once the wait is over and every slot is still taken', async () => {
    const slots = new SendSlots(1, 30);
    expect(await slots.take(1)).toBe(1);
    expect(await slots.take(1)).toBe(0);
  });
});
