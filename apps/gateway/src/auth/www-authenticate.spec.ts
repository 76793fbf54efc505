import { wwwAuthenticate } from './www-authenticate.js';

describe('wwwAuthenticate', () => {
  it('names both schemes, plainly when no token was refused', () => {
    expect(wwwAuthenticate()).toBe('Bearer realm="conduit", ApiKey header="X-API-Key"');
  });

  it('says invalid_token for a refused bearer token, its description a safe quoted-string', () => {
    expect(wwwAuthenticate('token expired')).toBe(
      'Bearer realm="conduit", error="invalid_token", error_description="token expired", ApiKey header="X-API-Key"',
    );
    expect(wwwAuthenticate('claim "iss" \\ bad\r\n\u00e9')).toContain('error_description="claim \\"iss\\" \\\\ bad"');
    expect(wwwAuthenticate('x'.repeat(500))).toContain(`error_description="${'x'.repeat(100)}"`);
  });
});
