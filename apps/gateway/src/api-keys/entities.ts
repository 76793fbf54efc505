import { ApiKeyEntity } from './api-key.entity.js';
import { TenantEntity } from './tenant.entity.js';

/** Every entity of the gateway schema, for createServiceDataSource({ entities }). */
export const gatewayEntities = [TenantEntity, ApiKeyEntity];
