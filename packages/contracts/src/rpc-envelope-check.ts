import { SCOPES, type Scope } from './schemas/common.js';

const SCOPE_SET: ReadonlySet<string> = new Set<Scope>(SCOPES);

/** The usual RPC message: a context without idempotency key or deadline, and the request's data. */
export interface UsualEnvelope {
  ctx: { tenant_id: string; scopes: Scope[]; request_id: string };
  data: unknown;
}

/**
 * True only for a message the envelope schema (`rpc.ts`) accepts as it is: a plain object of `ctx` and `data`, whose
 * context has a tenant id of 1-64 characters, known scopes and a request id of 1-128 characters, and nothing else.
 * zod's parse of that envelope was a measurable share of a busy service's CPU; false sends the message to zod,
 * which decides (a create's idempotency key, a foreign or malformed message).
 */
export function isUsualEnvelope(message: unknown): message is UsualEnvelope {
  if (!isPlainObject(message) || !('data' in message)) return false;
  let keys = 0;
  for (const key in message) {
    if (key !== 'ctx' && key !== 'data') return false;
    keys++;
  }
  return keys === 2 && isUsualContext(message['ctx']);
}

function isUsualContext(ctx: unknown): boolean {
  if (!isPlainObject(ctx)) return false;
  let keys = 0;
  for (const key in ctx) {
    if (key !== 'tenant_id' && key !== 'scopes' && key !== 'request_id') return false;
    keys++;
  }
  const { tenant_id: tenant, scopes, request_id: requestId } = ctx;
  return (
    keys === 3 &&
    typeof tenant === 'string' &&
    tenant.length >= 1 &&
    tenant.length <= 64 &&
    typeof requestId === 'string' &&
    requestId.length >= 1 &&
    requestId.length <= 128 &&
    areScopes(scopes)
  );
}

/** Indexed, not `every`: a hole in a sparse array is an undefined the schema refuses. */
function areScopes(scopes: unknown): boolean {
  if (!Array.isArray(scopes) || Object.getPrototypeOf(scopes) !== Array.prototype) return false;
  for (let i = 0; i < scopes.length; i++) {
    const scope: unknown = scopes[i];
    if (typeof scope !== 'string' || !SCOPE_SET.has(scope)) return false;
  }
  return true;
}

/** What JSON.parse makes of an object: the plain prototype (anything else goes to zod). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}
