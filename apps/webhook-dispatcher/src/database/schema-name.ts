import type { DataSource } from 'typeorm';
import { schemaOf } from '@conduit/service-kit';

export const DEFAULT_SCHEMA = 'webhooks';

/** The data source's schema, quoted for raw SQL (tests migrate a schema of their own). */
export function quotedSchemaOf(ds: DataSource): string {
  return ds.driver.escape(schemaOf(ds));
}
