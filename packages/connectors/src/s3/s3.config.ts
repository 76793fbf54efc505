/** The s3 connector's type metadata, config schema, and the typed config the driver works with. */
import { CONNECTOR_SECRET_FIELDS } from '@conduit/contracts';
import { assertValidConfig } from '../config-parser.js';
import { FILE_FORMATS, type FileFormat } from '../formats/file-format.js';
import type { ConnectorTypeInfo } from '../types.js';

export interface S3Config {
  /** For S3-compatible servers (MinIO, Ceph, ...); AWS when absent. */
  endpoint: string | undefined;
  region: string;
  bucket: string;
  access_key_id: string;
  secret_access_key: string;
  /** `endpoint/bucket/key` instead of `bucket.endpoint/key`; most S3-compatible servers need it. */
  force_path_style: boolean;
  /** Key prefix that node paths are relative to; default none. */
  prefix: string;
  format: FileFormat | undefined;
  csv_delimiter: string;
  /** Multipart upload part size; writes larger than one part are uploaded in parts. */
  part_size_mb: number;
}

export const s3Info: ConnectorTypeInfo = {
  type: 's3',
  category: 'object_store',
  description: 'Amazon S3 or an S3-compatible object store: read and write CSV, JSON lines and Parquet objects.',
  roles: ['source', 'sink'],
  secret_fields: CONNECTOR_SECRET_FIELDS.s3,
  location_fields: ['endpoint', 'region', 'bucket'],
  config_schema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      endpoint: { type: 'string', pattern: '^https?://', maxLength: 2048, description: 'For S3-compatible servers' },
      region: { type: 'string', minLength: 1, maxLength: 64, default: 'us-east-1' },
      bucket: { type: 'string', minLength: 3, maxLength: 63, pattern: '^[a-z0-9][a-z0-9.-]*[a-z0-9]$' },
      access_key_id: { type: 'string', minLength: 1, maxLength: 256 },
      secret_access_key: { type: 'string', minLength: 1, maxLength: 1024, writeOnly: true, 'x-secret': true },
      force_path_style: { type: 'boolean', default: false },
      prefix: { type: 'string', maxLength: 1024, default: '', description: 'Key prefix node paths are relative to' },
      format: {
        type: 'string',
        enum: [...FILE_FORMATS],
        description: 'Default format when a key has no known extension',
      },
      csv_delimiter: { type: 'string', minLength: 1, maxLength: 1, default: ',' },
      part_size_mb: { type: 'integer', minimum: 5, maximum: 5120, default: 8 },
    },
    required: ['bucket', 'access_key_id', 'secret_access_key'],
    additionalProperties: false,
  },
};

export function parseS3Config(config: Record<string, unknown>): S3Config {
  assertValidConfig(s3Info, config);
  const prefix = (config['prefix'] as string | undefined) ?? '';
  return {
    endpoint: config['endpoint'] as string | undefined,
    region: (config['region'] as string | undefined) ?? 'us-east-1',
    bucket: config['bucket'] as string,
    access_key_id: config['access_key_id'] as string,
    secret_access_key: config['secret_access_key'] as string,
    force_path_style: (config['force_path_style'] as boolean | undefined) ?? false,
    prefix: prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`,
    format: config['format'] as FileFormat | undefined,
    csv_delimiter: (config['csv_delimiter'] as string | undefined) ?? ',',
    part_size_mb: (config['part_size_mb'] as number | undefined) ?? 8,
  };
}
