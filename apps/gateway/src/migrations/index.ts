import { GatewayInit1795311399076 } from './1795311399076-gateway-init.js';
import { IdempotencyKeys1795400000000 } from './1795400000000-idempotency-keys.js';

/** Every migration of the gateway schema, oldest first, for createServiceDataSource({ migrations }). */
export const gatewayMigrations = [GatewayInit1795311399076, IdempotencyKeys1795400000000];
