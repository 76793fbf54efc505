import { SetMetadata } from '@nestjs/common';
import type { Scope } from '@conduit/contracts';

export const PUBLIC_ROUTE = 'conduit:public';
export const ROUTE_SCOPE = 'conduit:scope';

/** No credential needed (health, docs, the OpenAPI document). */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

/** The scope a route needs when it is not the default of its method (GET: read, others: write). */
export const RequireScope = (scope: Scope) => SetMetadata(ROUTE_SCOPE, scope);
