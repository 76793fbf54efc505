/**
 * A service cannot start because of something outside it (a dependency, a port, a setting). Its message is the whole
 * story in one line, written for whoever started the service: what, where (never a password) and what to check.
 */
export class StartupError extends Error {
  constructor(
    /** What failed: `database`, `redis`, `port`, `configuration`. */
    readonly dependency: string,
    message: string,
  ) {
    super(message);
    this.name = 'StartupError';
  }
}

/** `postgres://user:secret@host:5432/db` as `postgres://user@host:5432/db`: an address fit for a log line. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const user = parsed.username ? `${decodeURIComponent(parsed.username)}@` : '';
    return `${parsed.protocol}//${user}${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return '(an unparsable URL)';
  }
}

/** The one line a failed start prints: `catalog: failed to start: <why>`, never a stack trace. */
export function startupFailureLine(service: string, err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  // A message of several lines (a library's) is joined, so the failure stays one line.
  return `${service}: failed to start: ${message
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ')}`;
}
