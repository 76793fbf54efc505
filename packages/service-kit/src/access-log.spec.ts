import type { DestinationStream } from 'pino';
import { createAccessLog } from './access-log.js';
import { createLogger } from './logger.js';

function capture(): { stream: DestinationStream; lines: () => string[] } {
  const chunks: string[] = [];
  return {
    stream: { write: (chunk: string) => void chunks.push(chunk) },
    // The same millisecond's stamp is not guaranteed across two writers: compare lines without it.
    lines: () => chunks.map((chunk) => chunk.replace(/,"time":"[^"]+"/, ',"time":"T"')),
  };
}

describe('createAccessLog', () => {
  const fields = [
    {
      request_id: 'req_01M893SMJDB8XBJACMQCPVB2F9',
      method: 'GET',
      path: '/v2/projects/prj_01M893S8CZVWWDX8DMABQ21TCF',
      status: 200,
      duration_ms: 57,
      tenant_id: 'tnt_00000000000000000000000000',
    },
    { request_id: 'client "supplied" \\ id', method: 'POST', path: '/v2/x', status: 503, duration_ms: 0 },
    { request_id: 'r', method: 'GET', path: '/a\u0000b\nc\u001f\u007fé€😀', status: 404, duration_ms: 1.5 },
    { request_id: 'x'.repeat(150), method: 'GET', path: `/${'"'.repeat(120)}`, status: 200, duration_ms: NaN },
    { request_id: 'r', method: 'GET', path: '/', status: 200, duration_ms: Infinity, tenant_id: undefined },
  ];

  it.each(fields)('writes the line pino writes for the same fields and message (%#)', (line) => {
    const ours = capture();
    const theirs = capture();
    const pinoLogger = createLogger({ service: 'gateway', redact: false, destination: theirs.stream });
    const access = createAccessLog({ service: 'gateway', destination: ours.stream });
    pinoLogger.info(line, 'request');
    access.info(line, 'request');
    pinoLogger.error(line, 'request failed');
    access.error(line, 'request failed');
    expect(ours.lines()).toEqual(theirs.lines());
    expect(ours.lines().map((l) => JSON.parse(l) as unknown)).toHaveLength(2);
  });

  it('honours the level as pino does', () => {
    for (const level of ['trace', 'info', 'warn', 'error', 'fatal', 'silent']) {
      const ours = capture();
      const theirs = capture();
      const pinoLogger = createLogger({ service: 's', level, redact: false, destination: theirs.stream });
      const access = createAccessLog({ service: 's', level, destination: ours.stream });
      for (const target of [pinoLogger, access]) {
        target.info({ status: 200 }, 'request');
        target.error({ status: 500 }, 'request failed');
      }
      expect(ours.lines()).toEqual(theirs.lines());
    }
  });

  it('refuses an unknown level, as pino does', () => {
    expect(() => createAccessLog({ service: 's', level: 'loud' })).toThrow(/level/);
  });
});
