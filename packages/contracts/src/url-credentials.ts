/**
 * Credentials written into a URL (`user:password@`, `?api_key=...`) or a plain header would be stored and answered
 * in clear with it, and logged wherever it is. Connectors and webhooks refuse them and point to their secret settings.
 */

// Query parameter names that carry a credential, compared without case, `-` or `_`.
const CREDENTIAL_PARAMS = new Set([
  'key',
  'apikey',
  'sig',
  'pwd',
  'pass',
  'auth',
  'code',
  'jwt',
  'session',
  'sessionid',
]);
const CREDENTIAL_PARTS = [
  'token',
  'secret',
  'password',
  'passwd',
  'apikey',
  'signature',
  'credential',
  'accesskey',
  'authorization',
];

/** Whether a query parameter or header name says it carries a credential (`api_key`, `X-Auth-Token`, `Cookie`...). */
export function isCredentialName(name: string): boolean {
  const n = name.toLowerCase().replace(/[-_]/g, '');
  return CREDENTIAL_PARAMS.has(n) || n === 'cookie' || CREDENTIAL_PARTS.some((part) => n.includes(part));
}

/** Why this URL carries a credential (naming the part, never its value), or undefined when it does not. */
export function urlCredentialProblem(url: URL): string | undefined {
  if (url.username !== '' || url.password !== '') return 'must not carry credentials (user:password@)';
  const names = [...new Set([...url.searchParams.keys()].filter(isCredentialName))];
  if (names.length > 0)
    return `must not carry credentials in its query (${names.map((n) => n.slice(0, 40)).join(', ')})`;
  return undefined;
}
