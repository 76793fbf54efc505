/**
 * JSON with every object's keys in sorted order, so two bodies that are the same JSON value (api.md: "the same
 * body") give the same text whatever order a client wrote their fields in. Arrays keep their order: it is data.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
    return sorted;
  });
}
