// Who the key is: GET /v2/whoami answers the tenant (with its name) and the credential, and proves the key works.
import { ConduitApiError, type ConduitClient, type Problem } from '@conduit/sdk';

export interface Identity {
  /** The tenant's name, or its id for a tenant that has none (one only bearer tokens name). */
  tenant: string;
  /** The tenant's id: what keys anything the browser keeps per tenant (two tenants may share a name). */
  tenantId: string;
  scopes: string[];
}

export async function identify(client: ConduitClient): Promise<Identity> {
  const { data, error, response } = await client.raw.GET('/v2/whoami');
  if (!data) {
    const problem = error as Problem | undefined;
    throw new ConduitApiError(
      problem ?? {
        type: 'about:blank',
        title: response.statusText,
        status: response.status,
        code: `http_${response.status}`,
        detail: `the gateway answered ${response.status}`,
        instance: '/v2/whoami',
        request_id: '',
      },
    );
  }
  return { tenant: data.tenant.name ?? data.tenant.id, tenantId: data.tenant.id, scopes: [...data.credential.scopes] };
}
