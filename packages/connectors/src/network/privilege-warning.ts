/**
 * The Test Connection check that warns when a database session has rights over the server itself. It is a warning,
 * not a failure (the connection works), but such a connector can read or write the server's files or run programs
 * on it (COPY ... TO PROGRAM, LOAD DATA INFILE): give the connector a role that owns only what it needs.
 */
import type { CheckStep } from '../connection-checks.js';

export const WARNINGS_DETAIL = 'warnings';

/** A `privileges` check: lists the dangerous rights `find` reports as a warning (still ok), or says there are none. */
export function privilegesStep(details: Record<string, unknown>, find: () => Promise<string[]>): CheckStep {
  return {
    name: 'privileges',
    async run() {
      const rights = await find();
      if (rights.length === 0) return 'the session has no superuser or server file rights';
      const warning =
        `warning: the session has ${rights.join(', ')}: anyone who can edit a pipeline with this connector can read and ` +
        "write the server's files or run programs on it; use a role with only the rights the pipelines need";
      details[WARNINGS_DETAIL] = [warning];
      return warning;
    },
  };
}

/** The success message, with the warning after it when there is one. */
export function withWarnings(message: string, details: Record<string, unknown>): string {
  const warnings = details[WARNINGS_DETAIL];
  return Array.isArray(warnings) && warnings.length > 0 ? `${message} (${String(warnings[0])})` : message;
}
