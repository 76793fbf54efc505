/** Test Connection for s3: resolve, network_policy, connect (TCP), authenticate (list buckets), bucket (head), list (the prefix). */
import {
  HeadBucketCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  S3ServiceException,
  type S3Client,
} from '@aws-sdk/client-s3';
import { invalidConfigResult } from '../config-parser.js';
import { runChecks, type CheckStep } from '../connection-checks.js';
import { openTcp } from '../network-steps.js';
import { policySteps, type ResolvedTarget } from '../network/policy-steps.js';
import type { TestOptions, TestResult } from '../types.js';
import { classifyS3Error, endpointOf, newS3Client } from './s3-client.js';
import { parseS3Config, type S3Config } from './s3.config.js';

export async function testS3(config: Record<string, unknown>, opts: TestOptions = {}): Promise<TestResult> {
  let cfg: S3Config;
  try {
    cfg = parseS3Config(config);
  } catch (err) {
    return invalidConfigResult(err);
  }
  const endpoint = endpointOf(cfg);
  const details: Record<string, unknown> = { endpoint: endpoint.url, bucket: cfg.bucket };
  const target: ResolvedTarget = { address: endpoint.host };
  let client: S3Client | undefined;
  const s3 = () => (client ??= newS3Client(cfg));

  const steps: CheckStep[] = [
    ...policySteps({ connectorType: 's3', host: endpoint.host, port: endpoint.port }, target),
    {
      name: 'connect',
      run: (signal) =>
        openTcp(target.address, endpoint.port, signal).then(
          () => `TCP connection to ${endpoint.host}:${endpoint.port} opened`,
        ),
    },
    {
      name: 'authenticate',
      async run(signal) {
        try {
          await s3().send(new ListBucketsCommand({}), { abortSignal: signal });
          return `credentials of "${cfg.access_key_id}" accepted`;
        } catch (err) {
          // Signed correctly but not allowed to list every bucket: the credentials themselves are fine.
          if (err instanceof S3ServiceException && err.name === 'AccessDenied')
            return `credentials of "${cfg.access_key_id}" accepted (no permission to list buckets)`;
          throw err;
        }
      },
    },
    {
      name: 'bucket',
      async run(signal) {
        await s3().send(new HeadBucketCommand({ Bucket: cfg.bucket }), { abortSignal: signal });
        return `bucket "${cfg.bucket}" exists`;
      },
    },
    {
      name: 'permission',
      async run(signal) {
        // One page of the default size: s3rver fails on truncated listings, and one page costs one request anyway.
        const page = await s3().send(new ListObjectsV2Command({ Bucket: cfg.bucket, Prefix: cfg.prefix }), {
          abortSignal: signal,
        });
        details['prefix_empty'] = (page.KeyCount ?? 0) === 0;
        return `objects under "${cfg.prefix}" can be listed`;
      },
    },
  ];

  return runChecks(
    {
      steps,
      classify: (err) => classifyS3Error(err, cfg.bucket),
      details,
      secrets: [cfg.secret_access_key],
      cleanup: () => client?.destroy(),
      successMessage: () => `bucket "${cfg.bucket}" at ${endpoint.url} is reachable and listable`,
    },
    opts,
  );
}
