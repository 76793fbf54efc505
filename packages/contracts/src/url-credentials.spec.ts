import { isCredentialName, textUrlCredentialProblem, urlCredentialProblem } from './url-credentials.js';

describe('urlCredentialProblem', () => {
  it.each([
    ['https://user:pass@api.example.com/v1', 'must not carry credentials (user:password@)'],
    ['https://user@api.example.com/v1', 'must not carry credentials (user:password@)'],
    ['https://api.example.com/v1?api_key=abc', 'must not carry credentials in its query (api_key)'],
    [
      'https://api.example.com/v1?format=json&Access-Token=abc',
      'must not carry credentials in its query (Access-Token)',
    ],
    ['https://api.example.com/?client_secret=x&sig=y', 'must not carry credentials in its query (client_secret, sig)'],
    [
      'https://s3.example.com/?X-Amz-Credential=a&X-Amz-Signature=b',
      'must not carry credentials in its query (X-Amz-Credential, X-Amz-Signature)',
    ],
    ['https://api.example.com/?password=p', 'must not carry credentials in its query (password)'],
  ])('refuses %s, naming the part and not its value', (text, problem) => {
    expect(urlCredentialProblem(new URL(text))).toBe(problem);
  });

  it.each([
    'https://api.example.com/v1',
    'https://api.example.com/v1?page=2&limit=10',
    'http://127.0.0.1:8080/x?monkey=1',
  ])('accepts %s', (text) => {
    expect(urlCredentialProblem(new URL(text))).toBeUndefined();
  });
});

describe('isCredentialName', () => {
  it('knows header and parameter names that carry credentials', () => {
    for (const name of [
      'Authorization',
      'Proxy-Authorization',
      'Cookie',
      'X-API-Key',
      'X-Auth-Token',
      'api_key',
      'client_secret',
      'X-Amz-Signature',
    ]) {
      expect({ name, credential: isCredentialName(name) }).toEqual({ name, credential: true });
    }
    for (const name of ['X-Auth-Key', 'Authentication', 'Ocp-Apim-Subscription-Key', 'private_key', 'auth_key'])
      expect({ name, credential: isCredentialName(name) }).toEqual({ name, credential: true });
    for (const name of [
      'Accept',
      'Content-Type',
      'X-Request-Id',
      'User-Agent',
      'page',
      'monkey',
      'author',
      'sort_key',
      'Idempotency-Key',
    ]) {
      expect({ name, credential: isCredentialName(name) }).toEqual({ name, credential: false });
    }
  });
});

describe('textUrlCredentialProblem', () => {
  it.each([
    ['https:/me:Pw-1@api.example.com/', 'must not carry credentials (user:password@)'],
    ['https:\\\\me:Pw-2@api.example.com/', 'must not carry credentials (user:password@)'],
    ['https://me:Pw-3@api.example.com:99999/', 'must not carry credentials (user:password@)'],
    ['https://api.example.com/cb#access_token=Pw-4', 'must not carry credentials in its query (access_token)'],
    ['amqps://me:Pw-5@mq.example.com/vhost', 'must not carry credentials (user:password@)'],
  ])('refuses %s however it is written', (text, problem) => {
    expect(textUrlCredentialProblem(text)).toBe(problem);
  });

  it.each(['api.example.com', 'https://api.example.com/v1?page=2', 'C:\\data\\file.csv', 'Note: no URL here'])(
    'passes %s',
    (text) => {
      expect(textUrlCredentialProblem(text)).toBeUndefined();
    },
  );
});
