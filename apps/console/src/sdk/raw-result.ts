// The data of a `client.raw` call (operations the SDK's helpers do not cover yet: metrics, alerts, webhooks), or the
// API's problem thrown as a ConduitApiError, as the helpers do.
import { ConduitApiError, type Problem } from '@conduit/sdk';

export async function dataOf<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await pending;
  if (response.ok && data !== undefined) return data;
  const problem = error as Problem | undefined;
  throw new ConduitApiError(
    problem ?? {
      type: 'about:blank',
      title: response.statusText,
      status: response.status,
      code: `http_${response.status}`,
      detail: `the gateway answered ${response.status}`,
      instance: new URL(response.url || 'http://unknown/').pathname,
      request_id: '',
    },
  );
}
