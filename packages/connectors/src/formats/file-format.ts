/** The file formats that file-like connectors (file, s3) read and write, and how a name or a setting picks one. */
import { ConnectorError } from '../connector-error.js';
import { scalarText } from './scalar-text.js';

export const FILE_FORMATS = ['csv', 'jsonl', 'parquet'] as const;
export type FileFormat = (typeof FILE_FORMATS)[number];

const EXTENSIONS: Record<string, FileFormat> = {
  '.csv': 'csv',
  '.jsonl': 'jsonl',
  '.ndjson': 'jsonl',
  '.parquet': 'parquet',
  '.pq': 'parquet',
};

export const extensionOf = (format: FileFormat): string => `.${format}`;

/** The format a name's extension says, if any. */
export function formatOfName(name: string): FileFormat | undefined {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? undefined : EXTENSIONS[name.slice(dot).toLowerCase()];
}

/** `requested` (a node's `format`), else the connector's default, else the name's extension. */
export function chooseFormat(requested: unknown, fallback: FileFormat | undefined, name: string): FileFormat {
  if (requested !== undefined && requested !== null) {
    if (typeof requested !== 'string' || !(FILE_FORMATS as readonly string[]).includes(requested)) {
      throw new ConnectorError(
        `unknown format "${scalarText(requested)}": use one of ${FILE_FORMATS.join(', ')}`,
        'config_error',
      );
    }
    return requested as FileFormat;
  }
  const format = formatOfName(name) ?? fallback;
  if (!format)
    throw new ConnectorError(
      `cannot tell the format of "${name}": set format (${FILE_FORMATS.join(', ')})`,
      'config_error',
    );
  return format;
}

export const isGlob = (pattern: string): boolean => /[*?[]/.test(pattern);

/** The part of a glob before its first wildcard segment, e.g. `in/2024/` of `in/2024/*.csv`. */
export function globBase(pattern: string): string {
  const segments = pattern.split('/');
  const first = segments.findIndex((s) => isGlob(s));
  return first < 0
    ? pattern
    : segments
        .slice(0, first)
        .map((s) => `${s}/`)
        .join('');
}

/** A matcher for `/`-separated names: `**` any depth, `*` within a segment, `?` one character, `[...]` a class. */
export function globMatcher(pattern: string): (name: string) => boolean {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '*' && pattern[i + 1] === '*') {
      source += pattern[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += pattern[i + 2] === '/' ? 2 : 1;
    } else if (ch === '*') source += '[^/]*';
    else if (ch === '?') source += '[^/]';
    else if (ch === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) source += '\\[';
      else {
        source += `[${pattern
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else source += ch.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  const regex = new RegExp(`^${source}$`);
  return (name) => regex.test(name);
}

/** A part-file name that sorts by time and never collides: `part-20240102T030405006Z-1a2b3c4d.csv`. */
export function partFileName(format: FileFormat, stem = 'part'): string {
  const stamp = new Date().toISOString().replace(/[-:.]/g, '');
  return `${stem}-${stamp}-${crypto.randomUUID().slice(0, 8)}${extensionOf(format)}`;
}
