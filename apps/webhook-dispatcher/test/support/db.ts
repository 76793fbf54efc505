import { testSchemas } from '@conduit/testing';
import { createDispatcherDataSource } from '../../src/database/dispatcher-data-source.js';

export { DATABASE_URL, newTenant, rpcCtx } from '@conduit/testing';

export const { newSchemaName, openSchema, dropSchema } = testSchemas('webhooks', createDispatcherDataSource);
