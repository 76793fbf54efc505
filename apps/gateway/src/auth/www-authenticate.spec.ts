import { AppError } from '@conduit/contracts';
import { wwwAuthenticate } from './www-authenticate.js';

describe('wwwAuthenticate', () => {
  it('names both schemes, and the token error once a credential was sent', () => {
    expect(wwwAuthenticate()).toBe('Bearer realm="conduit", ApiKey realm="conduit", header="X-API-Key"');
    expect(wwwAuthenticate(new AppError('unauthenticated', 'token "x" expired'), true)).toBe(
      'Bearer realm="conduit", error="invalid_token", error_description="token x expired", ApiKey realm="conduit", header="X-API-Key"',
    );
  });
});
