import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv } from 'ajv';
import { DCLinter as UntypedLinter } from 'dclint';
import { COMPOSE_PATH, durationMs, loadCompose } from './support/compose.js';
import { COMPOSE_INFRA, ROOT, SERVICES } from './support/repo.js';
import { DEFAULT_INTERRUPT_GRACE_MS as EXECUTOR_INTERRUPT_GRACE_DEFAULT_MS } from '../../apps/executor/dist/data/interrupts.js';

// dclint's declarations import their own files without extensions, which NodeNext cannot follow (its types come out
// unresolved): the little of it these checks use, typed here.
interface LintMessage {
  rule: string;
  line: number;
  message: string;
}
type Linter = new (options: Record<string, unknown>) => {
  lintFiles(paths: string[], recursive: boolean): { messages: LintMessage[] }[];
};
const DCLinter = UntypedLinter as unknown as Linter;

const compose = loadCompose();

describe('docker-compose.yml', () => {
  it('validates against the Compose specification JSON schema (the one dclint ships)', () => {
    const schema = JSON.parse(
      readFileSync(resolve(ROOT, 'node_modules/dclint/schemas/compose.schema.json'), 'utf8'),
    ) as Record<string, unknown>;
    // Declared as draft-07 (without the "#" Ajv's meta-schema id has): compile it with Ajv's draft-07 default.
    expect(schema.$schema).toMatch(/json-schema\.org\/draft-07\/schema/);
    delete schema.$schema;
    const ajv = new Ajv({ allErrors: true, strict: false });
    const validate = ajv.compile(schema);
    const valid = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it("passes dclint's correctness rules", () => {
    // Ordering rules (alphabetical services, key order) are style and left off; no-build-and-image is off because
    // every service deliberately tags the one shared build with the same image name.
    const rules = [
      'no-duplicate-container-names',
      'no-duplicate-exported-ports',
      'no-quotes-in-volumes',
      'no-unbound-port-interfaces',
      'no-version-field',
      'require-project-name-field',
      'service-container-name-regex',
      'service-image-require-explicit-tag',
    ];
    const styleRules = [
      'no-build-and-image',
      'service-dependencies-alphabetical-order',
      'service-keys-order',
      'service-ports-alphabetical-order',
      'services-alphabetical-order',
      'top-level-properties-order',
    ];
    const config = Object.fromEntries([
      ...rules.map((r) => [r, 2] as const),
      ['require-quotes-in-ports', [2, { quoteType: 'double' }]] as const,
      ...styleRules.map((r) => [r, 0] as const),
    ]);
    const linter = new DCLinter({ rules: config, quiet: true, debug: false, exclude: [] });
    const [result] = linter.lintFiles([resolve(ROOT, COMPOSE_PATH)], false);
    expect(result?.messages.map((m) => `${m.rule} (line ${m.line}): ${m.message}`)).toEqual([]);
  });

  it('runs exactly the six services plus PostgreSQL, Redis and the migration step', () => {
    expect(Object.keys(compose.services).sort()).toEqual([...SERVICES.map((s) => s.name), ...COMPOSE_INFRA].sort());
  });

  it('PostgreSQL keeps a volume and has a healthcheck; Redis persists every second and never evicts', () => {
    const { postgres, redis } = compose.services;
    expect(postgres?.volumes).toEqual(
      expect.arrayContaining([expect.stringMatching(/^pgdata:\/var\/lib\/postgresql\/data$/)]),
    );
    expect(postgres?.healthcheck?.test).toEqual(expect.arrayContaining(['pg_isready']));
    const redisArgs = (redis?.command ?? []).join(' ');
    expect(redisArgs).toMatch(/--appendonly yes/);
    expect(redisArgs).toMatch(/--appendfsync everysec/);
    expect(redisArgs).toMatch(/--maxmemory-policy noeviction/);
    expect(redis?.healthcheck?.test).toEqual(expect.arrayContaining(['redis-cli', 'ping']));
    expect(Object.keys(compose.volumes ?? {})).toEqual(expect.arrayContaining(['pgdata', 'redisdata']));
  });

  it("the migration step runs every service's migrations once PostgreSQL is healthy", () => {
    const migrate = compose.services.migrate!;
    expect(migrate.command).toEqual(['sh', '/app/migrate-all.sh']);
    expect(migrate.restart).toBe('no');
    expect(migrate.depends_on?.postgres).toEqual({ condition: 'service_healthy' });
  });

  it.each(SERVICES.map((s) => [s.name, s] as const))(
    '%s: its SERVICE, port, HOST, and depends_on with conditions',
    (name, info) => {
      const service = compose.services[name]!;
      const env = service.environment ?? {};
      expect(env.SERVICE).toBe(name);
      expect(String(env[info.portVar])).toBe(String(info.port));
      const hostVar = name === 'gateway' ? 'GATEWAY_HOST' : 'HOST';
      expect(env[hostVar]).toBe('0.0.0.0');
      // Every dependency waits for a condition, and nothing starts before PostgreSQL, Redis and (for services with
      // tables) the migrations are ready.
      const deps = service.depends_on ?? {};
      expect(
        Object.values(deps).every((d) => ['service_healthy', 'service_completed_successfully'].includes(d.condition)),
      ).toBe(true);
      expect(deps.redis).toEqual({ condition: 'service_healthy' });
      if (info.migrates) {
        expect(deps.postgres).toEqual({ condition: 'service_healthy' });
        expect(deps.migrate).toEqual({ condition: 'service_completed_successfully' });
      }
      // The image's HEALTHCHECK probes /readyz on this port; service_healthy waits on it.
      expect(service.healthcheck).toBeUndefined();
      expect(service.image).toMatch(/^conduit:/);
    },
  );

  it('the gateway is the only service with a published port: 3000, on the loopback by default, and not its metrics port', () => {
    const published = Object.entries(compose.services).filter(([, s]) => (s.ports ?? []).length > 0);
    expect(published.map(([n]) => n)).toEqual(['gateway']);
    expect(compose.services.gateway?.ports).toEqual(['127.0.0.1:3000:3000']);
    expect(compose.services.gateway?.environment?.GATEWAY_METRICS_PORT).toBe('3100');
  });

  it('`--scale executor=4` works: no container_name and no host port on the executor, none anywhere else either', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      expect([name, service.container_name]).toEqual([name, undefined]);
    }
    expect(compose.services.executor?.ports).toBeUndefined();
  });

  it("the executor's stop grace outlasts its drain (EXECUTOR_SHUTDOWN_GRACE_MS + EXECUTOR_INTERRUPT_GRACE_MS) by at least 10 s", () => {
    const executor = compose.services.executor!;
    const drainMs =
      Number(executor.environment?.EXECUTOR_SHUTDOWN_GRACE_MS) +
      Number(executor.environment?.EXECUTOR_INTERRUPT_GRACE_MS ?? EXECUTOR_INTERRUPT_GRACE_DEFAULT_MS);
    expect(drainMs).toBeGreaterThan(0);
    expect(durationMs(executor.stop_grace_period ?? '10s')).toBeGreaterThanOrEqual(drainMs + 10_000);
  });
});
