/** A small JSON path: `data.items`, `$.data.items`, `results[0].rows`; an empty path is the document itself. */

export function parseJsonPath(path: string): (string | number)[] {
  const text = path.trim().replace(/^\$\.?/, '');
  if (text === '') return [];
  const parts: (string | number)[] = [];
  for (const segment of text.split('.')) {
    const match = /^([^[\]]*)((?:\[\d+\])*)$/.exec(segment);
    if (!match) throw new Error(`invalid JSON path "${path}"`);
    if (match[1]) parts.push(match[1]);
    for (const index of (match[2] ?? '').matchAll(/\[(\d+)\]/g)) parts.push(Number(index[1]));
  }
  return parts;
}

/** The value at `path`, or undefined when any step is missing. */
export function valueAt(document: unknown, path: string): unknown {
  let current: unknown = document;
  for (const part of parseJsonPath(path)) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[part];
  }
  return current;
}
