import 'reflect-metadata';
import pino from 'pino';
import type { RpcContext, RpcData } from '@conduit/contracts';
import { RedisStreamsContext } from '@conduit/rpc-streams';
import { RpcRoute } from './rpc-route.decorator.js';

class Probe {
  readonly logger = pino({ level: 'silent' });
  seen: RpcContext[] = [];

  // A pattern whose answer is null, so the probe needs no resource to return.
  @RpcRoute('catalog.projects.delete')
  async get(_d: RpcData<'catalog.projects.delete'>, ctx: RpcContext): Promise<null> {
    this.seen.push(ctx);
    return null;
  }
}

const message = { ctx: { tenant_id: 'tnt_1', scopes: ['read'], request_id: 'req_1' }, data: { id: 'prj_1' } };
type Wrapped = (message: unknown, transport?: unknown) => Promise<unknown>;

describe('@RpcRoute', () => {
  it("hands the handler the transport's deadline, over one a sender wrote in the envelope", async () => {
    const probe = new Probe();
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the probe as `this`, as Nest does
    const handler = probe.get as unknown as Wrapped;
    const deadline = Date.now() + 5_000;
    await handler.call(
      probe,
      { ...message, ctx: { ...message.ctx, deadline: 1 } },
      new RedisStreamsContext(['catalog.projects.delete', '1-0', undefined, deadline]),
    );
    await handler.call(probe, message, new RedisStreamsContext(['catalog.projects.delete', '1-1', undefined]));
    expect(probe.seen[0]?.deadline).toBe(deadline);
    expect(probe.seen[1]?.deadline).toBeUndefined();
  });
});
