import { AppError, type Scope } from '@conduit/contracts';
import type { Principal } from './principal.js';

// Scope implications: write implies read, admin implies everything. api.md lists the scopes
// separately; we chose this so that an admin key can do what it administers and a writer can
// read back what it wrote.
const IMPLIED: Record<Scope, readonly Scope[]> = {
  read: ['read'],
  write: ['write', 'read'],
  admin: ['admin', 'write', 'read'],
};

/** The scope an ordinary /v2 operation needs: read for GET/HEAD, write otherwise. Admin routes ask for 'admin' themselves. */
export function requiredScope(method: string): Scope {
  const m = method.toUpperCase();
  return m === 'GET' || m === 'HEAD' ? 'read' : 'write';
}

export function hasScope(principal: Principal, scope: Scope): boolean {
  return principal.scopes.some((granted) => IMPLIED[granted].includes(scope));
}

/** Throws 403 forbidden unless the principal holds `scope` (directly or by implication). */
export function assertScope(principal: Principal, scope: Scope): void {
  if (!hasScope(principal, scope)) {
    throw new AppError('forbidden', `this credential lacks the '${scope}' scope`);
  }
}

/** Operators are admins of the bootstrap tenant: only they may create tenants. */
export function assertOperator(principal: Principal, bootstrapTenantId: string): void {
  if (principal.tenant_id !== bootstrapTenantId || !hasScope(principal, 'admin')) {
    throw new AppError('forbidden', 'only an admin of the operator tenant may manage tenants');
  }
}
