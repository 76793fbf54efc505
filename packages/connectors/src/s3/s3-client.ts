/** The S3 client for a config, and how S3 and network failures are classified. */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { isIP } from 'node:net';
import { S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { ConnectorError } from '../connector-error.js';
import { isTransientNetCode, isUnknownHostCode } from '../network-steps.js';
import { checkedAddress, guardedLookup } from '../network/target-check.js';
import { errorCode, errorMessage } from '../postgres/pg-errors.js';
import type { ErrorClass } from '../types.js';
import type { S3Config } from './s3.config.js';

const CONNECT_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 120_000;

/**
 * A client whose every connection goes through the network policy: names are resolved by a lookup that checks each
 * address (and the connection uses that address); an IP literal endpoint, which skips lookup, is checked per request.
 */
export function newS3Client(cfg: S3Config, connectTimeoutMs = CONNECT_TIMEOUT_MS): S3Client {
  const endpoint = endpointOf(cfg);
  const target = { connectorType: 's3', host: endpoint.host, port: endpoint.port };
  const agent = { keepAlive: true, lookup: guardedLookup(target) };
  const client = new S3Client({
    region: cfg.region,
    ...(cfg.endpoint ? { endpoint: cfg.endpoint } : {}),
    forcePathStyle: cfg.force_path_style,
    credentials: { accessKeyId: cfg.access_key_id, secretAccessKey: cfg.secret_access_key },
    maxAttempts: 3,
    requestHandler: {
      connectionTimeout: connectTimeoutMs,
      requestTimeout: REQUEST_TIMEOUT_MS,
      httpAgent: new HttpAgent(agent),
      httpsAgent: new HttpsAgent(agent),
    },
    // Newer SDKs add CRC checksums to every upload, which many S3-compatible servers reject.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  if (isIP(endpoint.host)) {
    client.middlewareStack.add(
      (next) => async (args) => {
        await checkedAddress(target);
        return next(args);
      },
      { step: 'initialize', name: 'conduitNetworkPolicy' },
    );
  }
  return client;
}

/** The host Test Connection resolves and connects to. */
export function endpointOf(cfg: S3Config): { host: string; port: number; url: string } {
  const url = new URL(cfg.endpoint ?? `https://s3.${cfg.region}.amazonaws.com`);
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const host = cfg.force_path_style || cfg.endpoint ? hostname : `${cfg.bucket}.${hostname}`;
  const port = url.port !== '' ? Number(url.port) : url.protocol === 'http:' ? 80 : 443;
  return { host, port, url: url.origin };
}

const CONFIG_ERROR_NAMES = new Set([
  'NoSuchBucket',
  'NoSuchKey',
  'NotFound',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'AccessDenied',
  'Forbidden',
  'InvalidBucketName',
  'AuthorizationHeaderMalformed',
  'PermanentRedirect',
  'InvalidRequest',
  'InvalidArgument',
]);

export function classifyS3Error(err: unknown, bucket?: string): { error_class: ErrorClass; message: string } {
  if (err instanceof ConnectorError) return { error_class: err.errorClass, message: err.message };
  const code = errorCode(err);
  if (isUnknownHostCode(code)) return { error_class: 'config_error', message: `unknown host: ${errorMessage(err)}` };
  if (isTransientNetCode(code)) return { error_class: 'transient_error', message: `${code}: ${errorMessage(err)}` };
  if (err instanceof S3ServiceException) {
    const status = err.$metadata.httpStatusCode;
    const message = s3Message(err, bucket);
    if (CONFIG_ERROR_NAMES.has(err.name) || status === 403 || status === 404 || status === 400) {
      return { error_class: 'config_error', message };
    }
    return { error_class: 'transient_error', message };
  }
  return { error_class: 'transient_error', message: errorMessage(err) };
}

/** A readable message: HEAD answers carry no body, so 403 and 404 only have the status to go on. */
function s3Message(err: S3ServiceException, bucket: string | undefined): string {
  const status = err.$metadata.httpStatusCode;
  const where = bucket ? ` (bucket "${bucket}")` : '';
  if (err.name === 'NoSuchBucket' || (err.name === 'NotFound' && status === 404 && bucket))
    return `bucket "${bucket ?? '?'}" does not exist`;
  if (err.name === 'InvalidAccessKeyId') return 'the access key id is not known to the server';
  if (err.name === 'SignatureDoesNotMatch') return 'the secret access key does not match the access key id';
  if (status === 403 && (err.message === '' || err.message === 'UnknownError' || err.name === 'Forbidden'))
    return `access denied${where}`;
  const text = err.message && err.message !== 'UnknownError' ? err.message : `HTTP ${status ?? '?'}`;
  return `${err.name}: ${text}${where}`;
}

export function toS3ConnectorError(err: unknown, bucket: string, signal?: AbortSignal): unknown {
  if (err instanceof ConnectorError) return err;
  if (signal?.aborted) return signal.reason;
  const { error_class, message } = classifyS3Error(err, bucket);
  return new ConnectorError(message, error_class, {
    code: errorCode(err) ?? (err as { name?: string } | null)?.name,
    cause: err,
  });
}
