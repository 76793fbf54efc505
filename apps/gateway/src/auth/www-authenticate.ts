import type { AppError } from '@conduit/contracts';

/**
 * The WWW-Authenticate value of a 401 (RFC 9110 11.6.1, RFC 6750 3): both schemes we accept;
 * with error="invalid_token" when a credential was sent but refused.
 */
export function wwwAuthenticate(error?: AppError, credentialSent = false): string {
  const bearer = credentialSent
    ? `Bearer realm="conduit", error="invalid_token", error_description="${quote(error?.message ?? 'invalid credential')}"`
    : 'Bearer realm="conduit"';
  return `${bearer}, ApiKey realm="conduit", header="X-API-Key"`;
}

function quote(text: string): string {
  // RFC 6750 error_description: printable ASCII without '"' and '\'.
  return text.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '');
}
