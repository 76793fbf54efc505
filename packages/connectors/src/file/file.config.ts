/** The file connector's type metadata, config schema, and the typed config the driver works with. */
import { CONNECTOR_SECRET_FIELDS } from '@conduit/contracts';
import { assertValidConfig } from '../config-parser.js';
import { FILE_FORMATS, type FileFormat } from '../formats/file-format.js';
import type { ConnectorTypeInfo } from '../types.js';

export interface FileConfig {
  /** Folder relative to the data root that node paths are relative to; default the root itself. */
  path: string;
  /** Format for names without a known extension. */
  format: FileFormat | undefined;
  csv_delimiter: string;
}

export const fileInfo: ConnectorTypeInfo = {
  type: 'file',
  category: 'file',
  description: 'Local files under the data root: read and write CSV, JSON lines and Parquet.',
  roles: ['source', 'sink'],
  secret_fields: CONNECTOR_SECRET_FIELDS.file,
  location_fields: ['path'],
  config_schema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      path: { type: 'string', maxLength: 1024, default: '', description: 'Folder relative to the data root' },
      format: {
        type: 'string',
        enum: [...FILE_FORMATS],
        description: 'Default format when a name has no known extension',
      },
      csv_delimiter: { type: 'string', minLength: 1, maxLength: 1, default: ',' },
    },
    additionalProperties: false,
  },
};

export function parseFileConfig(config: Record<string, unknown>): FileConfig {
  assertValidConfig(fileInfo, config);
  return {
    path: (config['path'] as string | undefined) ?? '',
    format: config['format'] as FileFormat | undefined,
    csv_delimiter: (config['csv_delimiter'] as string | undefined) ?? ',',
  };
}
