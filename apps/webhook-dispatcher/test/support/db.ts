import type { DataSource } from 'typeorm';
import { testSchemas } from '@conduit/testing';
import { createDispatcherDataSource } from '../../src/database/dispatcher-data-source.js';

export { DATABASE_URL, newTenant, rpcCtx } from '@conduit/testing';

export const { newSchemaName, openSchema, dropSchema } = testSchemas('webhooks', createDispatcherDataSource);

/**
 * Runs `during` while the webhooks table is locked against inserts, so that a create started in it waits at its
 * insert, after what it does before; the lock goes after `during`, whatever it did.
 */
export async function whileWebhooksLocked<T>(ds: DataSource, during: () => Promise<T>): Promise<T> {
  const locker = ds.createQueryRunner();
  await locker.connect();
  try {
    await locker.startTransaction();
    await locker.query(`LOCK TABLE webhooks IN EXCLUSIVE MODE`);
    return await during();
  } finally {
    await locker.rollbackTransaction();
    await locker.release();
  }
}
