import type { Scope } from '@conduit/contracts';
import type { Principal } from './principal.js';
import { assertOperator, assertScope, hasScope, requiredScope } from './scopes.js';

const principal = (scopes: Scope[], tenant_id = 'tnt_a'): Principal => ({
  tenant_id,
  scopes,
  credential_id: 'key_x',
  kind: 'api_key',
  rate_limit_per_minute: null,
});

describe('scopes', () => {
  it('needs read for GET and HEAD, write for everything else', () => {
    expect(['GET', 'head'].map(requiredScope)).toEqual(['read', 'read']);
    expect(['POST', 'PUT', 'PATCH', 'DELETE'].map(requiredScope)).toEqual(['write', 'write', 'write', 'write']);
  });

  it('lets write imply read and admin imply all, nothing else', () => {
    expect(hasScope(principal(['write']), 'read')).toBe(true);
    expect(hasScope(principal(['write']), 'admin')).toBe(false);
    expect(hasScope(principal(['read']), 'write')).toBe(false);
    expect(['read', 'write', 'admin'].every((s) => hasScope(principal(['admin']), s as Scope))).toBe(true);
    expect(hasScope(principal([]), 'read')).toBe(false);
  });

  it('throws forbidden when a scope is missing', () => {
    expect(() => assertScope(principal(['read']), 'write')).toThrow(expect.objectContaining({ code: 'forbidden' }));
    expect(() => assertScope(principal(['read']), 'read')).not.toThrow();
  });

  it('treats only admins of the bootstrap tenant as operators', () => {
    expect(() => assertOperator(principal(['admin'], 'tnt_boot'), 'tnt_boot')).not.toThrow();
    expect(() => assertOperator(principal(['write'], 'tnt_boot'), 'tnt_boot')).toThrow(
      expect.objectContaining({ code: 'forbidden' }),
    );
    expect(() => assertOperator(principal(['admin'], 'tnt_other'), 'tnt_boot')).toThrow(
      expect.objectContaining({ code: 'forbidden' }),
    );
  });
});
