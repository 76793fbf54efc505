import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { WEBHOOK_URL_CREDENTIALS_HINT, urlCredentialProblem } from '@conduit/contracts';
import { webhookAddressRefusal } from './address-policy.js';

export interface UrlPolicyOptions {
  allowHttp: boolean;
  allowPrivateNetworks: boolean;
}

/** Where a delivery connects: the host as named (for TLS and Host) and the checked address it resolved to. */
export interface ResolvedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

/** Why a URL was refused; `code` goes into the 422's field error. */
export class UrlRefusedError extends Error {
  constructor(
    readonly code: 'invalid_url' | 'url_scheme_not_allowed' | 'url_not_allowed' | 'url_unresolvable',
    message: string,
  ) {
    super(message);
    this.name = 'UrlRefusedError';
  }
}

/** The URL's shape: absolute, https (or http when allowed), no credentials in it (user:password@ or ?token=). */
export function parseWebhookUrl(text: string, opts: UrlPolicyOptions): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UrlRefusedError('invalid_url', 'must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && opts.allowHttp)) {
    throw new UrlRefusedError(
      'url_scheme_not_allowed',
      opts.allowHttp ? 'must be an http or https URL' : 'must be an https URL',
    );
  }
  const credentials = urlCredentialProblem(url);
  if (credentials) throw new UrlRefusedError('invalid_url', `${credentials}: ${WEBHOOK_URL_CREDENTIALS_HINT}`);
  if (url.hostname === '') throw new UrlRefusedError('invalid_url', 'must name a host');
  return url;
}

function bareHost(url: URL): string {
  // WHATWG URL keeps IPv6 literals in brackets.
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Resolves the URL's host (every address, as a client might pick any of them) and refuses it when one of them is
 * forbidden. Run at create and again right before each attempt, whose connection then goes to the address
 * returned here: a DNS answer that changes in between (rebinding) cannot steer the request elsewhere.
 */
export async function resolveWebhookTarget(text: string, opts: UrlPolicyOptions): Promise<ResolvedTarget> {
  const url = parseWebhookUrl(text, opts);
  const host = bareHost(url);
  let addresses: { address: string; family: number }[];
  if (isIP(host) !== 0) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch {
      throw new UrlRefusedError('url_unresolvable', `host ${host} does not resolve`);
    }
  }
  const first = addresses[0];
  if (!first) throw new UrlRefusedError('url_unresolvable', `host ${host} does not resolve`);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  for (const { address } of addresses) {
    const reason = await webhookAddressRefusal(address, port, opts.allowPrivateNetworks);
    if (reason) throw new UrlRefusedError('url_not_allowed', `host ${host} is refused: ${reason}`);
  }
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
