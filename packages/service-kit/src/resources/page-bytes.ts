/**
 * What a page of a list answers at most of its rows' stored JSON (pipelines' DAGs and validations, jobs' and runs'
 * parameters and nodes): rows of up to ~1 MiB each made one page of 200 a body of hundreds of MB through the service,
 * Redis and the gateway, and a few at once ran a service out of memory.
 */
export const PAGE_BYTES = 8 * 1024 * 1024;

/** A row of a list as its sizes query reads it, in the list's order: its id and the bytes it weighs. */
export interface SizedRow {
  id: string;
  bytes: string | number | null;
}

/**
 * The ids of a page from its `limit + 1` rows sized in order: `limit` at most, and `pageBytes` at most (the first row
 * whatever its size), and whether rows follow them (a page cut short answers a next_cursor like any other). Only the
 * rows it names are then read whole.
 */
export function fitPage(
  sized: readonly SizedRow[],
  limit: number,
  pageBytes: number,
): { ids: string[]; more: boolean } {
  let fit = 0;
  let bytes = 0;
  for (const row of sized.slice(0, limit)) {
    bytes += Number(row.bytes ?? 0);
    if (fit > 0 && bytes > pageBytes) break;
    fit += 1;
  }
  return { ids: sized.slice(0, fit).map((row) => row.id), more: fit < sized.length };
}
