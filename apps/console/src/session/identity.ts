// Who the key is. The API has no "who am I" operation yet: a one-item project list proves the key works (401
// otherwise), and an admin key can find itself among the tenant's keys by prefix for its name and scopes.
import type { ConduitClient } from '@conduit/sdk';

export interface Identity {
  /** The key's first characters, as the API shows them. */
  prefix: string;
  /** The key's name and scopes, known only to admin keys (others may not list keys). */
  keyName?: string;
  scopes?: string[];
}

export async function identify(client: ConduitClient, apiKey: string): Promise<Identity> {
  await client.projects.list({ pageSize: 1 }).pages().next();
  const { data } = await client.raw.GET('/v2/api-keys', { params: { query: { limit: 200 } } });
  const mine = data?.data.find((key) => apiKey.startsWith(key.prefix));
  return mine
    ? { prefix: mine.prefix, keyName: mine.name, scopes: [...mine.scopes] }
    : { prefix: `${apiKey.slice(0, 8)}…` };
}
