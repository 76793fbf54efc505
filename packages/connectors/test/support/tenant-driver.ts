/** A driver whose every call carries `tenantId`, as the catalog's Test Connection and the executor's nodes pass it. */
import type { ConnectorDriver } from '../../src/index.js';

export const TEST_TENANT = 'tnt_test';

export function withTenant(driver: ConnectorDriver, tenantId: string = TEST_TENANT): ConnectorDriver {
  const read = driver.read?.bind(driver);
  const write = driver.write?.bind(driver);
  const execute = driver.execute?.bind(driver);
  return {
    info: driver.info,
    test: (config, opts = {}) => driver.test(config, { ...opts, tenantId }),
    ...(read ? { read: (config, req) => read(config, { ...req, tenantId }) } : {}),
    ...(write ? { write: (config, req, batches) => write(config, { ...req, tenantId }, batches) } : {}),
    ...(execute ? { execute: (config, sql, opts = {}) => execute(config, sql, { ...opts, tenantId }) } : {}),
  };
}
