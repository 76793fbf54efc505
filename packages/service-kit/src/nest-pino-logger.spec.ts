import type { DestinationStream } from 'pino';
import { createLogger } from './logger.js';
import { NestPinoLogger } from './nest-pino-logger.js';

function setup(level = 'trace') {
  const chunks: string[] = [];
  const stream: DestinationStream = { write: (chunk: string) => void chunks.push(chunk) };
  const nest = new NestPinoLogger(createLogger({ service: 'gateway', level, destination: stream }));
  const lines = () =>
    chunks
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { nest, lines };
}

describe('NestPinoLogger', () => {
  it('maps Nest levels to pino and keeps the context', () => {
    const { nest, lines } = setup();
    nest.log('mapped routes', 'RoutesResolver');
    nest.warn('careful', 'Ops');
    nest.debug('details', 'X');
    nest.verbose('chatter', 'X');
    nest.fatal('down', 'X');
    expect(lines().map((line) => [line['level'], line['msg'], line['context']])).toEqual([
      ['info', 'mapped routes', 'RoutesResolver'],
      ['warn', 'careful', 'Ops'],
      ['debug', 'details', 'X'],
      ['trace', 'chatter', 'X'],
      ['fatal', 'down', 'X'],
    ]);
  });

  it('keeps the stack Nest passes as a string, and serialises Error objects', () => {
    const { nest, lines } = setup();
    const failure = new Error('boom');
    nest.error('Unhandled', failure.stack, 'ExceptionsHandler');
    nest.error(failure, 'Service');
    const [fromString, fromError] = lines();
    expect(fromString).toMatchObject({ level: 'error', msg: 'Unhandled', context: 'ExceptionsHandler' });
    expect(String(fromString?.['stack'])).toContain('at ');
    expect(fromError).toMatchObject({ level: 'error', msg: 'boom', context: 'Service', err: { message: 'boom' } });
  });

  it('merges object messages and still redacts them', () => {
    const { nest, lines } = setup();
    nest.log({ event: 'connected', password: 'p4ss' }, 'Db');
    expect(lines()[0]).toMatchObject({ event: 'connected', password: '[redacted]', context: 'Db' });
  });

  it('skips levels the logger does not emit', () => {
    const { nest, lines } = setup('warn');
    nest.log('quiet', 'X');
    nest.error('loud', 'X');
    expect(lines().map((line) => line['msg'])).toEqual(['loud']);
  });
});
