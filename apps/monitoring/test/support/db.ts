import { testSchemas } from '@conduit/testing';
import { createMonitoringDataSource } from '../../src/database/monitoring-data-source.js';

export { DATABASE_URL, newTenant, rpcCtx } from '@conduit/testing';

export const { newSchemaName, openSchema, dropSchema } = testSchemas('monitoring', createMonitoringDataSource);
