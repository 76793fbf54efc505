/**
 * The names `format_type` gave the column types of a pooled connector's typed reads, kept with its pool (issue 18:
 * one round trip less per typed read). Only for PostgreSQL's own built-in types (OIDs below 10000, assigned in its
 * sources, the same in every version and never dropped) and only names as the default search_path prints them
 * (unqualified): a pool may reach another server after a DNS change, initdb's other objects (10000-16383) differ
 * between versions, and a tenant's query can change the search_path for its own transaction, which would print
 * `pg_catalog.text`. Everything else (enums and their arrays, extensions' types, system views' row types) is asked
 * at every read. A pool is one tenant's connector at one config, so nothing here crosses tenants; bounded, since
 * typmods (`varchar(n)`, `numeric(p,s)`) make many keys.
 */
import type { PgField } from './pg-types.js';

/** Names kept per pool at most; past it, new ones are asked at every read. */
const MAX_NAMES = 1_000;

/** PostgreSQL's FirstGenbkiObjectId: the OIDs below it are assigned by hand in its sources. */
const FIRST_GENBKI_OBJECT_ID = 10_000;

/** Whether the field's type is one of PostgreSQL's own, whose name is the same on every server. */
const isBuiltinType = (field: PgField): boolean => field.oid < FIRST_GENBKI_OBJECT_ID;

export class TypeNames {
  private readonly names = new Map<string, string>();

  /** The name kept for the field's type and typmod, if any. */
  get(field: PgField): string | undefined {
    return this.names.get(keyOf(field));
  }

  /** Keeps the name the server gave the field's type, if the type is built in and the name unqualified. */
  set(field: PgField, name: string): void {
    if (isBuiltinType(field) && !name.includes('.') && this.names.size < MAX_NAMES) this.names.set(keyOf(field), name);
  }
}

const keyOf = (field: PgField): string => `${field.oid}:${field.typmod}`;
