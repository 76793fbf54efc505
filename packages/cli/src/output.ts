// How the CLI speaks: text for people (colours and spinners only on a terminal, never with NO_COLOR), or
// `--output json` for scripts (one JSON document on stdout, errors included).
import { ConduitApiError, ConduitTimeoutError } from '@conduit/sdk';

export type OutputFormat = 'text' | 'json';

const CODES = { red: 31, green: 32, yellow: 33, blue: 34, gray: 90, bold: 1 } as const;
export type Colour = keyof typeof CODES;

export class Output {
  readonly isTty: boolean;
  readonly colours: boolean;

  constructor(
    readonly format: OutputFormat,
    readonly stdout: NodeJS.WriteStream = process.stdout,
    readonly stderr: NodeJS.WriteStream = process.stderr,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.isTty = stdout.isTTY === true && env.TERM !== 'dumb';
    // https://no-color.org: any non-empty NO_COLOR turns colours off.
    this.colours = this.isTty && format === 'text' && !env.NO_COLOR;
  }

  get json(): boolean {
    return this.format === 'json';
  }

  paint(colour: Colour, text: string): string {
    return this.colours ? `\u001b[${CODES[colour]}m${text}\u001b[0m` : text;
  }

  /** A line for people; nothing in JSON mode (the command prints its document instead). */
  line(text = ''): void {
    if (!this.json) this.stdout.write(`${terminalSafe(text)}\n`);
  }

  /** Progress and notes: stderr, so stdout stays the command's answer. */
  note(text: string): void {
    if (!this.json) this.stderr.write(`${terminalSafe(text)}\n`);
  }

  document(value: unknown): void {
    this.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** Columns padded to their widest cell. */
  table(header: string[], rows: string[][]): void {
    const widths = header.map((h, i) => Math.max(visibleLength(h), ...rows.map((r) => visibleLength(r[i] ?? ''))));
    const format = (cells: string[]) =>
      cells.map((c, i) => (i === cells.length - 1 ? c : c + ' '.repeat(widths[i]! - visibleLength(c)))).join('  ');
    this.line(this.paint('bold', format(header)));
    rows.forEach((r) => this.line(format(r)));
  }

  /** An error as people read it (title, detail, each field at fault), or as JSON `{ error }`. */
  error(err: unknown): void {
    if (this.json) {
      this.document({ error: errorDocument(err) });
      return;
    }
    this.stderr.write(`${this.paint('red', 'Error:')} ${terminalSafe(describeError(err))}\n`);
  }
}

/** The colours {@link Output.paint} writes, matched where a control character stands. */
// eslint-disable-next-line no-control-regex -- an ANSI colour sequence starts with ESC
const OWN_COLOUR = /\u001b\[(?:0|1|31|32|33|34|90)m/y;
/** Control characters but line feed and tab: C0 (ESC, BEL, CR...), DEL and C1. */
// eslint-disable-next-line no-control-regex -- the control characters are what it escapes
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text for a terminal: every control character written out (`\x1b`, `\x07`) but line feeds, tabs and the CLI's own
 * colours. Names, errors and log lines come from the API, and through it from other servers and LLM answers: raw,
 * an escape sequence in one would set the window title, write the clipboard (OSC 52), or erase and forge lines.
 */
export function terminalSafe(text: string): string {
  return text.replace(CONTROL, (c: string, at: number) => {
    if (c === '\u001b') {
      OWN_COLOUR.lastIndex = at;
      if (OWN_COLOUR.test(text)) return c;
    }
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
}

/** One line of a block the CLI redraws in place: {@link terminalSafe}, and no line feed to break its line count. */
export function oneLine(text: string): string {
  return terminalSafe(text).replace(/\n/g, '\\n');
}

export function visibleLength(text: string): number {
  // eslint-disable-next-line no-control-regex -- an ANSI colour sequence starts with ESC, the character matched here
  return text.replace(/\u001b\[[0-9;]*m/g, '').length;
}

export function errorDocument(err: unknown): Record<string, unknown> {
  if (err instanceof ConduitApiError) return { ...err.problem };
  if (err instanceof ConduitTimeoutError) return { code: 'timeout', detail: err.message };
  if (err instanceof CliError)
    return { code: err.code, detail: err.message, ...(err.details.length ? { errors: err.details } : {}) };
  // An error that says where another happened (which resource apply stopped at): the inner one's code, both details.
  if (err instanceof Error && err.cause instanceof Error) {
    const inner = errorDocument(err.cause);
    return { ...inner, detail: `${err.message}: ${String(inner['detail'])}` };
  }
  return { code: 'error', detail: err instanceof Error ? err.message : String(err) };
}

export function describeError(err: unknown): string {
  if (err instanceof ConduitApiError) {
    const lines = [`${err.title} (${err.status} ${err.code}): ${err.detail}`];
    for (const field of err.errors) lines.push(`  - ${field.path || '(body)'}: ${field.message} [${field.code}]`);
    if (err.requestId) lines.push(`  request id: ${err.requestId}`);
    return lines.join('\n');
  }
  if (err instanceof CliError) return [err.message, ...err.details.map((d) => `  - ${d}`)].join('\n');
  if (err instanceof Error && 'cause' in err && err.cause instanceof Error)
    return `${err.message}: ${describeError(err.cause)}`;
  return err instanceof Error ? err.message : String(err);
}

/** An error the CLI words itself: printed without a stack, with `code` in JSON and one line per detail; exit 1. */
export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details: string[] = [],
  ) {
    super(message);
  }
}

/** A mistake in how the command was called (a flag, a missing setting or file): exit 2, JSON code `usage`. */
export class UsageError extends CliError {
  constructor(message: string, details: string[] = []) {
    super('usage', message, details);
  }
}

/** The documented exit codes: 2 for a usage mistake, 1 for any other error (an API problem, the network, a file). */
export function exitCodeOf(err: unknown): number {
  return err instanceof UsageError ? 2 : 1;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** A spinner frame for this moment; only ever drawn on a terminal. */
export function spinnerFrame(now = Date.now()): string {
  return FRAMES[Math.floor(now / 80) % FRAMES.length]!;
}
