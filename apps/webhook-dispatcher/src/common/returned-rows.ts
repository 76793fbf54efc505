/**
 * The rows of a raw `UPDATE/DELETE ... RETURNING`: TypeORM's PostgreSQL driver answers those as [rows, count],
 * and any other statement as the rows.
 */
export function returnedRows<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number')
    return result[0] as T[];
  return result as T[];
}
