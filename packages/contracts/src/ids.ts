/**
 * Type prefixes of every identifier (api.md, Conventions). Clients must not parse ids; the prefix is for humans.
 * New ids are made by @conduit/service-kit's `newId` (ulid and node:crypto stay out of this package).
 */
export const ID_PREFIXES = {
  project: 'prj',
  pipeline: 'pln',
  connector: 'con',
  job: 'job',
  run: 'run',
  webhook: 'whk',
  delivery: 'dlv',
  alert: 'alt',
  event: 'evt',
  apiKey: 'key',
  tenant: 'tnt',
  request: 'req',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;
export type IdPrefix = (typeof ID_PREFIXES)[IdKind];

const ULID_BODY = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** The pattern of a well-formed id of one kind (its prefix and a ULID), as the OpenAPI document shows it. */
export function idPattern(kind: IdKind): string {
  return `^${ID_PREFIXES[kind]}_${ULID_BODY.source.slice(1, -1)}$`;
}

/** True when `value` is a well-formed id of that kind; a malformed path id is answered 404, never 500. */
export function isId(kind: IdKind, value: unknown): value is string {
  if (typeof value !== 'string' || value.length !== ID_PREFIXES[kind].length + 27) return false;
  return value.startsWith(`${ID_PREFIXES[kind]}_`) && ULID_BODY.test(value.slice(-26));
}
