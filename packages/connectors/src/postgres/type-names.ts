/**
 * The names `format_type` gave the column types of a pooled connector's typed reads, kept with its pool (issue 18:
 * one round trip less per typed read). Only for the types made with the server (`initdb`: OIDs below 16384, which
 * no object made later takes), whose names are fixed for it. Enums, arrays of them and extensions' types are asked
 * at every read: they can be dropped and made again under other names. A pool is one tenant's connector at one
 * config, so nothing here crosses tenants; bounded, since typmods (`varchar(n)`, `numeric(p,s)`) make many keys.
 */
import type { PgField } from './pg-types.js';

/** Names kept per pool at most; past it, new ones are asked at every read. */
const MAX_NAMES = 1_000;

/** PostgreSQL's FirstNormalObjectId: every OID below it was assigned when the server's cluster was made. */
const FIRST_NORMAL_OBJECT_ID = 16_384;

/** Whether the field's type came with the server, so that its name is fixed for it. */
export const isServerType = (field: PgField): boolean => field.oid < FIRST_NORMAL_OBJECT_ID;

export class TypeNames {
  private readonly names = new Map<string, string>();

  /** The name kept for the field's type and typmod, if any. */
  get(field: PgField): string | undefined {
    return this.names.get(keyOf(field));
  }

  /** Keeps the name the server gave the field's type, if the type came with the server. */
  set(field: PgField, name: string): void {
    if (isServerType(field) && this.names.size < MAX_NAMES) this.names.set(keyOf(field), name);
  }
}

const keyOf = (field: PgField): string => `${field.oid}:${field.typmod}`;
