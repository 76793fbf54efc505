import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ROOT } from './repo.js';

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

export const OVERLAYS = ['dev', 'prod'] as const;

/** Fails loudly when kubectl is not installed: these checks must not pass by doing nothing. */
export function kubectlVersion(): string {
  try {
    return execFileSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  } catch (err) {
    throw new Error(`kubectl is required to render the kustomizations (kubectl kustomize): ${String(err)}`, {
      cause: err,
    });
  }
}

/** `kubectl kustomize <dir>`, parsed into its objects. */
export function render(dir: string): K8sObject[] {
  const out = execFileSync('kubectl', ['kustomize', resolve(ROOT, dir)], {
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  return parseAllDocuments(out).map((doc) => {
    if (doc.errors.length > 0)
      throw new Error(`kubectl kustomize ${dir} printed invalid YAML: ${doc.errors[0]?.message}`);
    return doc.toJS() as K8sObject;
  });
}

export function find(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found)
    throw new Error(`no ${kind} ${name} among ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`);
  return found;
}
