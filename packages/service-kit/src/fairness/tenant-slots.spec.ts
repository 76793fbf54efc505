import { TenantSlots } from './tenant-slots.js';

describe('TenantSlots', () => {
  it('gives each tenant at most its slots, apart from every other tenant, and takes each back once', () => {
    const slots = new TenantSlots(2);
    const a1 = slots.take('a');
    const a2 = slots.take('a');
    expect(a1 && a2).toBeDefined();
    expect(slots.take('a')).toBeUndefined();
    expect(slots.take('b')).toBeDefined();
    a1!();
    a1!();
    expect(slots.inUse('a')).toBe(1);
    expect(slots.take('a')).toBeDefined();
    expect(slots.take('a')).toBeUndefined();
    // Past its share where the caller lends it: counted all the same.
    const lent = slots.take('a', true);
    expect(slots.inUse('a')).toBe(3);
    lent!();
    expect(slots.inUse('a')).toBe(2);
  });
});
