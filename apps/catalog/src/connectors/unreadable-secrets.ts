/**
 * A stored secret that does not open for its connector: sealed for another connector or tenant (a row copied in the
 * database), under a key no longer configured, or altered. It is never used and never a 500: Test Connection fails
 * with a config_error, an update must send it again.
 */
import { runChecks } from '@conduit/connectors';
import { SECRET_MASK, type ConnectionTestResult, type FieldError } from '@conduit/contracts';

function why(fields: readonly string[]): string {
  return (
    `the stored secret${fields.length > 1 ? 's' : ''} ${fields.join(', ')} cannot be used: ` +
    'sealed for another connector, under a key that is no longer configured, or altered'
  );
}

/** The Test Connection answer without connecting: one failed `secrets` check telling to send the secrets again. */
export function unreadableSecretsResult(fields: readonly string[]): Promise<ConnectionTestResult> {
  const message = `${why(fields)}; send ${fields.length > 1 ? 'them' : 'it'} again with an update of the connector`;
  return runChecks({
    steps: [
      {
        name: 'secrets',
        run: () => Promise.reject(new Error(message)),
      },
    ],
    classify: () => ({ error_class: 'config_error', message }),
    details: {},
    secrets: [],
    successMessage: () => message,
  });
}

/** An update keeping such a secret as "********": 422 secret_required on each field. */
export function unreadableSecretErrors(fields: readonly string[], incoming: Record<string, unknown>): FieldError[] {
  return fields
    .filter((field) => incoming[field] === SECRET_MASK)
    .map((field) => ({
      path: `config.${field}`,
      code: 'secret_required',
      message: `must be sent again (not "********"): ${why([field])}`,
    }));
}
