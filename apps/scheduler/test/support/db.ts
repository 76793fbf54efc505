import { testSchemas } from '@conduit/testing';
import { createSchedulerDataSource } from '../../src/database/scheduler-data-source.js';

export { DATABASE_URL, newTenant, rpcCtx } from '@conduit/testing';

export const { newSchemaName, openSchema, dropSchema } = testSchemas('scheduler', createSchedulerDataSource);
