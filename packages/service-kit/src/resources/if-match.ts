import { AppError } from '@conduit/contracts';

/**
 * Honours an If-Match header value against the current ETag (RFC 9110 13.1.1: strong comparison, `*` matches
 * any current representation, a list matches when one of its tags does).
 */
export function assertIfMatch(ifMatch: string | undefined, currentEtag: string): void {
  if (ifMatch === undefined) return;
  const wanted = ifMatch.trim();
  if (wanted === '*') return;
  const tags = wanted.split(',').map((t) => t.trim());
  if (tags.includes(currentEtag)) return;
  throw new AppError(
    'precondition_failed',
    'the resource has changed since it was read (If-Match does not match its ETag)',
  );
}
