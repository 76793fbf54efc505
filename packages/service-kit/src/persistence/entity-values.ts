import type { QueryDeepPartialEntity } from 'typeorm';

/**
 * Column values for insert/update. TypeORM's deep-partial write type cannot express jsonb columns typed as
 * `Record<string, unknown>` (it recurses into them), although they are written as plain JSON.
 */
export function entityValues<T>(values: Partial<T>): QueryDeepPartialEntity<T> {
  return values as QueryDeepPartialEntity<T>;
}
