import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadManifest } from './load.js';
import { validateManifest } from './validate.js';

const dir = mkdtempSync(join(tmpdir(), 'conduit-manifest-'));
function check(yaml: string, env: NodeJS.ProcessEnv = {}, missingEnv: 'error' | 'warning' = 'error') {
  const file = join(dir, `m${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, yaml);
  const loaded = loadManifest(file, { env, missingEnv });
  return {
    loaded,
    issues: validateManifest(loaded).map((i) => ({ severity: i.severity, code: i.code, line: i.line })),
  };
}

const VALID = `projects:
  - name: p
    connectors:
      - name: db
        type: postgres
        config: { host: h, database: d, user: u, password: "\${env:PW}" }
    pipelines:
      - name: copy
        dag:
          nodes:
            - { id: a, type: source, config: { connector: db, table: t } }
            - { id: b, type: sink, config: { connector: db, table: u, mode: append } }
          edges: [{ from: a, to: b }]
    jobs:
      - { name: j, pipeline: copy }
`;

describe('validateManifest', () => {
  it('accepts a valid file and fills in the environment', () => {
    const { loaded, issues } = check(VALID, { PW: 's3cret' });
    expect(issues).toEqual([]);
    expect(loaded.manifest?.projects[0]?.connectors[0]?.config['password']).toBe('s3cret');
  });

  it('reports an unset variable on its line, as an error or (validate) a warning', () => {
    expect(check(VALID).issues).toEqual([{ severity: 'error', code: 'env_unset', line: 6 }]);
    expect(check(VALID, {}, 'warning').issues).toEqual([{ severity: 'warning', code: 'env_unset', line: 6 }]);
  });

  it('places DAG, reference and structure errors on their lines, all at once', () => {
    const broken = VALID.replace('mode: append', 'mode: sideways')
      .replace('connector: db, table: t', 'connector: nope, table: t')
      .replace('pipeline: copy', 'pipeline: nope, shedule: x');
    expect(check(broken, { PW: 'x' }).issues).toEqual([
      { severity: 'error', code: 'unknown_connector', line: 11 },
      { severity: 'error', code: 'invalid_node_config', line: 12 },
      { severity: 'error', code: 'unknown_field', line: 15 },
      { severity: 'error', code: 'unknown_pipeline', line: 15 },
    ]);
  });

  it('names the line of a YAML syntax error', () => {
    expect(check('projects:\n  - name: p\n    connectors: [\n').issues).toEqual([
      expect.objectContaining({ code: 'yaml', line: expect.any(Number) }),
    ]);
  });
});
