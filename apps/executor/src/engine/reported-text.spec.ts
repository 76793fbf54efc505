import { RUN_ERROR_MESSAGE_MAX, runErrorSchema } from '@conduit/contracts';
import { reportedError, reportedOutput, reportedText } from './reported-text.js';

describe('reportedText', () => {
  it('keeps a text within the limit as it is', () => {
    expect(reportedText('short', 10)).toBe('short');
  });

  it('cuts a longer text to the limit, saying how much was cut', () => {
    const cut = reportedText('x'.repeat(100), 40);
    expect(cut.length).toBeLessThanOrEqual(40);
    expect(cut).toMatch(/^x+ … \[\d+ characters cut\]$/);
    expect(Number(/\[(\d+) characters/.exec(cut)![1]) + cut.indexOf(' …')).toBe(100);
  });

  it('never leaves half of a surrogate pair or a NUL (jsonb refuses both)', () => {
    const text = `a\u0000${'😀'.repeat(50)}`;
    for (let max = 30; max < 40; max++) {
      const cut = reportedText(text, max);
      expect(cut).not.toContain('\u0000');
      expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    }
  });
});

describe('reportedError', () => {
  it('fits runErrorSchema whatever the message and code', () => {
    const error = reportedError('m'.repeat(9000), { node_id: 'n', code: 'c'.repeat(100) });
    expect(runErrorSchema.safeParse(error).success).toBe(true);
    expect(error.message.length).toBeLessThanOrEqual(RUN_ERROR_MESSAGE_MAX);
    expect(error.node_id).toBe('n');
  });
});

describe('reportedOutput', () => {
  it('cuts every string at any depth and keeps the rest', () => {
    const output = reportedOutput({ choice: 'a', reason: 'r'.repeat(9000), n: 1, nested: [{ s: 's'.repeat(9000) }] });
    expect(output['choice']).toBe('a');
    expect(output['n']).toBe(1);
    expect((output['reason'] as string).length).toBeLessThanOrEqual(RUN_ERROR_MESSAGE_MAX);
    expect((output['nested'] as { s: string }[])[0]!.s.length).toBeLessThanOrEqual(RUN_ERROR_MESSAGE_MAX);
  });
});
