// Reads conduit.yaml keeping every value's position (yaml's LineCounter), so each finding names its line.
import { readFileSync } from 'node:fs';
import { isMap, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { UsageError } from '../output.js';
import { checkManifestShape } from './shape.js';
import type { Manifest, ManifestIssue, Path } from './model.js';

export interface LoadedManifest {
  file: string;
  /** Undefined when the file is not a manifest at all (YAML errors, wrong shape): see issues. */
  manifest: Manifest | undefined;
  issues: ManifestIssue[];
  /** Where a path of the file is: its line and column (1-based), or its nearest ancestor's. */
  locate(path: Path): { line: number; column: number } | undefined;
}

export interface LoadOptions {
  env: NodeJS.ProcessEnv;
  /** An unset `${env:NAME}` is an error (plan, apply) or a warning (validate: CI may check a file without secrets). */
  missingEnv: 'error' | 'warning';
}

const ENV_REFERENCE = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Replaces `${env:NAME}` in every string, recording each unset variable at its path. */
function interpolate(
  value: unknown,
  path: Path,
  env: NodeJS.ProcessEnv,
  missing: (path: Path, name: string) => void,
): unknown {
  if (typeof value === 'string') {
    return value.replace(ENV_REFERENCE, (_all, name: string) => {
      const set = env[name];
      if (set === undefined) missing(path, name);
      return set ?? '';
    });
  }
  if (Array.isArray(value)) return value.map((item, i) => interpolate(item, [...path, i], env, missing));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, [...path, k], env, missing)]));
  }
  return value;
}

function nodeAt(doc: Document, path: Path): Node | undefined {
  let node: unknown = doc.contents;
  for (const part of path) {
    if (isMap(node)) node = node.get(part, true);
    else if (isSeq(node) && typeof part === 'number') node = node.get(part, true);
    else return undefined;
    if (node === undefined || node === null) return undefined;
  }
  return node as Node;
}

function readManifestText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    // The usual cause is running from another directory than the file's, or the default name: say which flag helps.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new UsageError(`no manifest at ${file} (use -f <file>)`);
    throw err;
  }
}

export function loadManifest(file: string, options: LoadOptions): LoadedManifest {
  const text = readManifestText(file);
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true });
  const locate = (path: Path) => {
    for (let depth = path.length; depth >= 0; depth--) {
      const range = nodeAt(doc, path.slice(0, depth))?.range;
      if (range) {
        const { line, col } = lineCounter.linePos(range[0]);
        return { line, column: col };
      }
    }
    return undefined;
  };
  const issues: ManifestIssue[] = [];
  const place = (issue: ManifestIssue): ManifestIssue => ({
    ...issue,
    ...(issue.line === undefined ? locate(issue.path) : {}),
  });

  for (const err of doc.errors) {
    const pos = err.linePos?.[0];
    issues.push({
      severity: 'error',
      code: 'yaml',
      message: (err.message.split('\n')[0] ?? err.message).replace(/ at line \d+, column \d+:?$/, ''),
      path: [],
      ...(pos ? { line: pos.line, column: pos.col } : {}),
    });
  }
  if (doc.errors.length > 0) return { file, manifest: undefined, issues, locate };

  const raw = interpolate(doc.toJS(), [], options.env, (path, name) =>
    issues.push(
      place({
        severity: options.missingEnv,
        code: 'env_unset',
        message: `environment variable ${name} is not set`,
        path,
      }),
    ),
  );
  const shape = checkManifestShape(raw);
  issues.push(...shape.issues.map(place));
  return { file, manifest: shape.manifest, issues, locate };
}
