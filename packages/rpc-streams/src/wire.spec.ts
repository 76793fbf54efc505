import {
  MESSAGE_FIELD,
  decodeReplies,
  decodeRequest,
  encodeReplies,
  encodeReplyReference,
  encodeRequest,
  replyReferenceOf,
  toTransportableError,
} from './wire.js';

/** The field list XREADGROUP returns for an entry of one message. */
const entryOf = (message: string) => [MESSAGE_FIELD, message];

describe('wire format', () => {
  it('round-trips a request through one XADD field', () => {
    const request = {
      id: 'r-1',
      pattern: 'catalog.projects.create',
      data: { name: 'p', tags: ['a'], nested: { n: 1 } },
      reply: 'conduit:rpc:reply:c-1',
      deadline: 1_700_000_000_123,
      metadata: { request_id: 'req-9' },
    };
    expect(decodeRequest(entryOf(encodeRequest(request)))).toEqual(request);
  });

  it('reads the older entry of one field per property, as a replica not yet upgraded writes it', () => {
    const old = [
      'pattern',
      'catalog.projects.get',
      'data',
      '{"id":"prj_1"}',
      'id',
      'r-2',
      'reply',
      'conduit:rpc:reply:c-2',
      'deadline',
      '1700000000123',
      'metadata',
      '{"a":1}',
    ];
    expect(decodeRequest(old)).toEqual({
      pattern: 'catalog.projects.get',
      data: { id: 'prj_1' },
      id: 'r-2',
      reply: 'conduit:rpc:reply:c-2',
      deadline: 1_700_000_000_123,
      metadata: { a: 1 },
    });
  });

  it('encodes an event without id, reply or deadline', () => {
    const message = encodeRequest({ pattern: 'svc.x.y', data: 1 });
    expect(JSON.parse(message)).toEqual({ pattern: 'svc.x.y', data: 1 });
    expect(decodeRequest(entryOf(message))).toEqual({ pattern: 'svc.x.y', data: 1 });
    expect(decodeRequest(entryOf(encodeRequest({ pattern: 'svc.x.y', data: undefined })))).toEqual({
      pattern: 'svc.x.y',
      data: null,
    });
  });

  it('rejects an entry without pattern or data', () => {
    expect(() => decodeRequest(['pattern', 'svc.x.y'])).toThrow(/no pattern or data/);
    expect(() => decodeRequest(['pattern', 'svc.x.y', 'data', '{oops'])).toThrow(SyntaxError);
    expect(() => decodeRequest(['m', '{"data":1}'])).toThrow(/no pattern or data/);
    expect(() => decodeRequest(['m', '{"pattern":"svc.x.y"}'])).toThrow(/no pattern or data/);
    expect(() => decodeRequest(['m', '{oops'])).toThrow(SyntaxError);
  });

  it('publishes one reply as itself and several to the same caller as one array', () => {
    const a = JSON.stringify({ id: 'a', response: 1, isDisposed: true });
    const b = JSON.stringify({ id: 'b', err: 'no', isDisposed: true });
    expect(encodeReplies([a])).toBe(a);
    expect(decodeReplies(encodeReplies([a]))).toEqual([{ id: 'a', response: 1, isDisposed: true }]);
    expect(decodeReplies(encodeReplies([a, b]))).toEqual([
      { id: 'a', response: 1, isDisposed: true },
      { id: 'b', err: 'no', isDisposed: true },
    ]);
    expect(() => decodeReplies('{oops')).toThrow(SyntaxError);
  });

  it('keeps the name and message of an Error, which JSON.stringify would lose', () => {
    expect(JSON.parse(JSON.stringify(toTransportableError(new TypeError('bad'))))).toEqual({
      name: 'TypeError',
      message: 'bad',
    });
    expect(toTransportableError({ code: 'x' })).toEqual({ code: 'x' });
  });

  it('tells a reply reference from a reply, and from what is no JSON, without throwing', () => {
    expect(replyReferenceOf(encodeReplyReference('conduit:rpc:reply:c-1:k'))).toBe('conduit:rpc:reply:c-1:k');
    expect(replyReferenceOf('{"id":"r-1","response":{"ref":"x"}}')).toBeUndefined();
    expect(replyReferenceOf('{"ref":')).toBeUndefined();
    expect(replyReferenceOf('{"ref":1}')).toBeUndefined();
  });
});
