/**
 * DuckDB's allocator (jemalloc, linked into libduckdb) options for a process that runs under a data-size limit
 * (RLIMIT_DATA, which counts what is mapped): that it hand address space back as memory is freed, or a process whose
 * tenant's statement failed at its limit would stay near it, and V8's next heap page would end it (measured).
 * jemalloc reads them once, as the binding loads, so they must be in the environment first: the executor's entry
 * sets them on itself, limited-child.ts on its children. Imports nothing (`@conduit/connectors/allocator-options`),
 * so a process can set them before anything loads DuckDB.
 */

/** The variable jemalloc reads (its prefix is DuckDB's). */
export const DUCKDB_ALLOCATOR_OPTIONS = 'DUCKDB_JE_MALLOC_CONF';

/**
 * - `retain:false`: by default jemalloc keeps every range it ever mapped.
 * - `oversize_threshold`: an allocation this large or larger comes from jemalloc's oversize arena, which keeps nothing
 *   freed. DuckDB sets 256 MiB; below that, freed extents stay mapped until a later allocation in their arena lets
 *   them decay, and a failed `string_split` left ~250 MB so (measured). A run's own allocations (256 KiB blocks,
 *   vectors) are far smaller: `bench/duckdb-workspace.mjs` moved by noise only.
 */
const FREED_ADDRESS_SPACE: Record<string, string> = { retain: 'false', oversize_threshold: String(8 * 1024 * 1024) };

/** `own` options (an operator's, kept whole, an option they set themselves included) with the missing ones added. */
export function withFreedAddressSpace(own: string | undefined): string {
  const kept = own?.trim() ?? '';
  const missing = Object.entries(FREED_ADDRESS_SPACE)
    .filter(([name]) => !new RegExp(`(^|,)${name}:`).test(kept))
    .map(([name, value]) => `${name}:${value}`);
  return [kept, ...missing].filter((part) => part !== '').join(',');
}
