import { consumerName, replyChannel, requestStreamKey, resolveOptions, serviceOfPattern } from './options.js';

describe('options and names', () => {
  it('applies the documented defaults', () => {
    expect(resolveOptions({ url: 'redis://h:6379' })).toEqual({
      url: 'redis://h:6379',
      prefix: 'conduit:',
      timeoutMs: 5000,
      claimIdleMs: 10_000,
      concurrency: 64,
      blockMs: 5000,
      maxStreamLength: 10_000,
      commandTimeoutMs: 0,
    });
  });

  it('refuses a non-positive or fractional number', () => {
    expect(() => resolveOptions({ url: 'redis://h', concurrency: 0 })).toThrow(/concurrency/);
    expect(() => resolveOptions({ url: 'redis://h', timeoutMs: 1.5 })).toThrow(/timeoutMs/);
  });

  it('routes a pattern to the stream of its first segment', () => {
    expect(serviceOfPattern('catalog.projects.create')).toBe('catalog');
    expect(requestStreamKey('conduit:', 'catalog')).toBe('conduit:rpc:catalog');
    expect(replyChannel('conduit:', 'c1')).toBe('conduit:rpc:reply:c1');
    expect(() => serviceOfPattern('catalog')).toThrow(/<service>/);
    expect(() => serviceOfPattern('.x')).toThrow(/<service>/);
  });

  it('names consumers hostname-pid-random, unique per instance', () => {
    const name = consumerName();
    expect(name).toMatch(new RegExp(`-${process.pid}-[0-9a-f]{8}$`));
    expect(consumerName()).not.toBe(name);
  });
});
