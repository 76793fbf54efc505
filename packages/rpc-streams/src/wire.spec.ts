import { decodeRequest, encodeRequest, toTransportableError } from './wire.js';

describe('wire format', () => {
  it('round-trips a request through the flat XADD field list', () => {
    const request = {
      id: 'r-1',
      pattern: 'catalog.projects.create',
      data: { name: 'p', tags: ['a'], nested: { n: 1 } },
      reply: 'conduit:rpc:reply:c-1',
      deadline: 1_700_000_000_123,
      metadata: { request_id: 'req-9' },
    };
    expect(decodeRequest(encodeRequest(request))).toEqual(request);
  });

  it('encodes an event without id, reply or deadline', () => {
    const fields = encodeRequest({ pattern: 'svc.x.y', data: 1 });
    expect(fields).toEqual(['pattern', 'svc.x.y', 'data', '1']);
    expect(decodeRequest(fields)).toEqual({ pattern: 'svc.x.y', data: 1 });
  });

  it('rejects an entry without pattern or data', () => {
    expect(() => decodeRequest(['pattern', 'svc.x.y'])).toThrow(/no pattern or data/);
    expect(() => decodeRequest(['pattern', 'svc.x.y', 'data', '{oops'])).toThrow(SyntaxError);
  });

  it('keeps the name and message of an Error, which JSON.stringify would lose', () => {
    expect(JSON.parse(JSON.stringify(toTransportableError(new TypeError('bad'))))).toEqual({
      name: 'TypeError',
      message: 'bad',
    });
    expect(toTransportableError({ code: 'x' })).toEqual({ code: 'x' });
  });
});
