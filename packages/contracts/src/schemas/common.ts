import { z } from 'zod';
import { type IdKind, idPattern, isId } from '../ids.js';

/** A character that shows: neither white space nor one Unicode ignores by default (zero-width spaces and joiners). */
const VISIBLE = /[^\p{White_Space}\p{Default_Ignorable_Code_Point}]/u;

export const LIMITS = {
  bodyBytes: 1024 * 1024,
  nameLength: 200,
  descriptionLength: 2000,
  jsonDepth: 64,
  /** Test Connection's whole budget: every step within it, or a transient_error 'timed out'. */
  testConnectionMs: 10_000,
} as const;

/**
 * Names are one line of text: no control characters (C0, DEL, C1). An ESC or BEL in a name reached the terminal of
 * whoever listed it (`conduit runs`: a window title, a clipboard write, a line erased). Nor bidirectional embeddings,
 * overrides or isolates, which make a listed name read as another ("Trojan Source"), and a name shows something: one
 * of nothing but zero-width or other invisible characters would be an entry nobody can tell apart or select.
 */
export const nameSchema = z
  .string()
  .trim()
  .min(1)
  .max(LIMITS.nameLength)
  // eslint-disable-next-line no-control-regex -- the control characters are what it refuses
  .regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, { message: 'must not contain control characters' })
  .regex(/^[^\u202a-\u202e\u2066-\u2069]*$/, {
    message: 'must not contain bidirectional embedding, override or isolate characters',
  })
  // An empty name is too_short alone.
  .refine((name) => name === '' || VISIBLE.test(name), {
    message: 'must contain a visible character',
    params: { code: 'invalid_format' },
  });
/** A description may break lines (line feeds, tabs, carriage returns) but holds no other control character. */
export const descriptionSchema = z
  .string()
  .max(LIMITS.descriptionLength)
  // eslint-disable-next-line no-control-regex -- the control characters are what it refuses
  .regex(/^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]*$/, {
    message: 'must not contain control characters but line breaks and tabs',
  })
  .nullable();
/** Ids in bodies and filters are checked loosely here (string of sane length); existence is the owner's check. */
export const idRefSchema = z.string().min(1).max(64);
/**
 * A list filter naming a resource by id: a value that cannot be such an id is a 400 (api.md: an unknown filter value
 * is a 400); a well-formed id of nothing the tenant has simply matches nothing.
 */
export const idFilterSchema = (kind: IdKind) =>
  z
    .string()
    .refine((value) => isId(kind, value), { message: `is not a ${kind} id`, params: { code: 'invalid_id' } })
    // The refinement is the check; the document shows the same rule as a pattern.
    .meta({ pattern: idPattern(kind) });
export const jsonObjectSchema = z.record(z.string(), z.unknown());

export const SCOPES = ['read', 'write', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
