import { PassThrough } from 'node:stream';
import { Output, oneLine, terminalSafe } from './output.js';

describe('terminalSafe', () => {
  it('writes out every escape a server could send: window title, clipboard, cursor moves, conceal, CR, BEL', () => {
    const hostile =
      'oops \u001b]0;TITLE\u001b\\\u001b]52;c;cHduZWQ=\u0007\u001b[2K\u001b[1A\u001b[8mhidden\rFAKE \u009b';
    const safe = terminalSafe(hostile);
    // eslint-disable-next-line no-control-regex -- no control character may be left
    expect(safe).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(safe).toBe('oops \\x1b]0;TITLE\\x1b\\\\x1b]52;c;cHduZWQ=\\x07\\x1b[2K\\x1b[1A\\x1b[8mhidden\\x0dFAKE \\x9b');
  });

  it("keeps the CLI's own colours, line feeds and tabs", () => {
    const out = new Output('text', Object.assign(new PassThrough(), { isTTY: true }) as unknown as NodeJS.WriteStream);
    const painted = `${out.paint('red', 'failed')}\tline\nnext ${out.paint('gray', 'x')}`;
    expect(terminalSafe(painted)).toBe(painted);
  });

  it('keeps a redrawn block one line per node', () => {
    expect(oneLine('a\nb\u001b[2K')).toBe('a\\nb\\x1b[2K');
  });

  it('is what Output writes for people', () => {
    const stdout = new PassThrough();
    const out = new Output(
      'text',
      stdout as unknown as NodeJS.WriteStream,
      stdout as unknown as NodeJS.WriteStream,
      {},
    );
    out.line('name \u001b]0;pwned\u0007');
    out.note('note \u001b[1A');
    out.error(new Error('boom \u001b]52;c;eA==\u0007'));
    expect(String(stdout.read())).toBe('name \\x1b]0;pwned\\x07\nnote \\x1b[1A\nError: boom \\x1b]52;c;eA==\\x07\n');
  });
});
