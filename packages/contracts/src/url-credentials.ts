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
  'authentication',
  'authkey',
  'privatekey',
  'secretkey',
  'clientkey',
  'sessionkey',
  'subscriptionkey',
];

/** Whether a query parameter or header name says it carries a credential (`api_key`, `X-Auth-Token`, `Cookie`...). */
export function isCredentialName(name: string): boolean {
  const n = name.toLowerCase().replace(/[-_]/g, '');
  return CREDENTIAL_PARAMS.has(n) || n === 'cookie' || CREDENTIAL_PARTS.some((part) => n.includes(part));
}

const USER_INFO = 'must not carry credentials (user:password@)';

/** The URL's query and fragment parameters (`#access_token=`) whose names say they carry a credential, each once. */
export function credentialParamNames(url: URL): string[] {
  const names = [...url.searchParams.keys(), ...new URLSearchParams(url.hash.slice(1)).keys()];
  return [...new Set(names.filter(isCredentialName))];
}

/**
 * Why this URL carries a credential (naming the part, never its value), or undefined when it does not: user info,
 * or a credential's name among the query's parameters or the fragment's (`#access_token=`, as OAuth's implicit flow
 * returns it).
 */
export function urlCredentialProblem(url: URL): string | undefined {
  if (url.username !== '' || url.password !== '') return USER_INFO;
  const names = credentialParamNames(url);
  if (names.length > 0)
    return `must not carry credentials in its query (${names.map((n) => n.slice(0, 40)).join(', ')})`;
  return undefined;
}

// A scheme, then slashes or backslashes (`https:/`, `https:\\` parse as `https://`), then user info before any path.
const SCHEMED = /^[a-z][a-z\d+.-]*:/i;
const WITH_USER_INFO = /^[a-z][a-z\d+.-]*:[\\/]*[^\\/?#@\s]*@/i;

/**
 * The credential problem of a config value that is a URL, or undefined: any string with a scheme is read as one, and
 * one that does not parse (a bad port, say) is still refused when it shows user info, which is what a client that
 * parses it more leniently would send.
 */
export function textUrlCredentialProblem(text: string): string | undefined {
  if (!SCHEMED.test(text)) return undefined;
  if (URL.canParse(text)) return urlCredentialProblem(new URL(text));
  return WITH_USER_INFO.test(text) ? USER_INFO : undefined;
}

/** USER_INFO when `text` is a URL carrying user info (`https://u:p@host`, parsed or not), else undefined. */
export function textUserInfoProblem(text: string): string | undefined {
  if (!SCHEMED.test(text)) return undefined;
  if (!URL.canParse(text)) return WITH_USER_INFO.test(text) ? USER_INFO : undefined;
  const url = new URL(text);
  return url.username !== '' || url.password !== '' ? USER_INFO : undefined;
}
