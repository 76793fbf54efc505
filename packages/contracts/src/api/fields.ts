// Field schemas the API's answers share: typed ids, timestamps, pages. Answers are documented, not parsed, with these.
import { z } from 'zod';
import { type IdKind, idPattern } from '../ids.js';

/** Example ids by kind: well-formed (prefix and ULID), so every example in the document matches its pattern. */
export const EXAMPLE_IDS: Record<IdKind, string> = {
  project: 'prj_01JD3V6Y9ZQ8W1S3X5C7E9G2HK',
  pipeline: 'pln_01JD3V7A2B3C4D5E6F7G8H9J0K',
  connector: 'con_01JD3V6Y9ZQ8W1S3X5C7E9G2HK',
  job: 'job_01JD3V8M4N5P6Q7R8S9T0V1W2X',
  run: 'run_01JD3VA1B2C3D4E5F6G7H8J9KM',
  webhook: 'whk_01JD3VB2C3D4E5F6G7H8J9KMNP',
  delivery: 'dlv_01JD3VC3D4E5F6G7H8J9KMNPQR',
  alert: 'alt_01JD3VD4E5F6G7H8J9KMNPQRST',
  event: 'evt_01JD3VE5F6G7H8J9KMNPQRSTVW',
  apiKey: 'key_01JD3VF6G7H8J9KMNPQRSTVWXY',
  tenant: 'tnt_01JD3VG7H8J9KMNPQRSTVWXYZ0',
  request: 'req_01JD3VH8J9KMNPQRSTVWXYZ012',
};

/** An id of one kind, as answered (opaque to clients: the prefix is for humans). */
export const idOf = (kind: IdKind) => z.string().meta({ pattern: idPattern(kind), example: EXAMPLE_IDS[kind] });

/** RFC 3339 in UTC with milliseconds. */
export const timestamp = z.iso.datetime().meta({ example: '2026-11-22T10:15:00.000Z' });

/** `{ data, next_cursor }`, newest first unless the operation says otherwise. */
export function pageOfSchema<T extends z.ZodType>(item: T, id: string) {
  return z
    .strictObject({
      data: z.array(item),
      next_cursor: z
        .string()
        .nullable()
        .meta({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
    })
    .meta({ id });
}

/** `{ data }` of the small catalogues, answered whole. */
export function listOfSchema<T extends z.ZodType>(item: T, id: string) {
  return z.strictObject({ data: z.array(item) }).meta({ id });
}
