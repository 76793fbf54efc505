/**
 * The WWW-Authenticate value of a 401 (RFC 9110 11.6.1): both schemes we accept. `refusal` is set when a Bearer token
 * was sent and refused: RFC 6750 3.1 then asks for error="invalid_token", so a client knows to get a new token; a
 * request that sent none gets the plain challenges (RFC 6750 3: no error code).
 */
export function wwwAuthenticate(refusal?: string): string {
  const bearer =
    refusal === undefined
      ? 'Bearer realm="conduit"'
      : `Bearer realm="conduit", error="invalid_token", error_description=${quoted(refusal)}`;
  return `${bearer}, ApiKey header="X-API-Key"`;
}

/**
 * A quoted-string (RFC 9110 5.6.4): `"` and `\` escaped, anything but printable ASCII dropped (a header value holds no
 * line break), at most 100 characters.
 */
function quoted(text: string): string {
  return `"${text
    .replace(/[^\x20-\x7e]/g, '')
    .slice(0, 100)
    .replace(/["\\]/g, '\\$&')}"`;
}
