// The signed-in session: the API key lives in sessionStorage (gone when the tab closes, never in a URL or a log).
import { ConduitClient } from '@conduit/sdk';

const KEY_ITEM = 'conduit.apiKey';

export function storedApiKey(storage: Storage = sessionStorage): string | undefined {
  return storage.getItem(KEY_ITEM) ?? undefined;
}

export function storeApiKey(apiKey: string, storage: Storage = sessionStorage): void {
  storage.setItem(KEY_ITEM, apiKey);
}

export function forgetApiKey(storage: Storage = sessionStorage): void {
  storage.removeItem(KEY_ITEM);
}

/** A client for the gateway that served the console (same origin: no CORS, no URL to configure). */
export function clientFor(apiKey: string, baseUrl: string = window.location.origin): ConduitClient {
  return new ConduitClient({ baseUrl, apiKey, retry: { maxAttempts: 3 } });
}
