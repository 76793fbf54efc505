/** Finds the `rel="next"` target of an RFC 8288 Link header. */

export function nextLink(header: string | string[] | undefined): string | undefined {
  const text = Array.isArray(header) ? header.join(',') : header;
  if (!text) return undefined;
  for (const match of text.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]+)*)/g)) {
    const params = match[2] ?? '';
    const rel = /;\s*rel\s*=\s*"?([^";,]+)"?/i.exec(params)?.[1];
    if (rel && rel.toLowerCase().split(/\s+/).includes('next')) return match[1];
  }
  return undefined;
}
