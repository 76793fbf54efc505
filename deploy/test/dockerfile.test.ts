import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { readRepoFile, ROOT, SERVICES } from './support/repo.js';

// No Docker engine runs here: check what can be checked without building, i.e. that the Dockerfile is shaped as
// intended and that every path and package it names exists in the repository.
const dockerfile = readRepoFile('Dockerfile');
const lines = dockerfile.split('\n');
const stages = lines.filter((l) => /^FROM /.test(l));
const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));

it('is multi-stage: turbo prune, a full build, and a slim runtime', () => {
  expect(stages.map((l) => l.split(' AS ')[1])).toEqual(['prune', 'build', 'runtime']);
  expect(dockerfile).toMatch(/turbo@\$\{TURBO_VERSION\} prune [^\n]*(\\\n[^\n]*)* --docker/);
  expect(dockerfile).toMatch(/npm ci /);
  expect(dockerfile).toMatch(/npm prune --omit=dev/);
  expect(stages[2]).toBe('FROM ${NODE_IMAGE} AS runtime');
  expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:\d+-bookworm-slim@sha256:[0-9a-f]{64}$/m);
});

it('builds on a supported Node LTS, every base image pinned by digest', () => {
  const images = [...dockerfile.matchAll(/^ARG NODE_(?:BUILD_)?IMAGE=(.+)$/gm)].map((m) => m[1] ?? '');
  expect(images).toHaveLength(2);
  for (const image of images) {
    expect(image).toMatch(/^node:(\d+)-bookworm(-slim)?@sha256:[0-9a-f]{64}$/);
    // Even-numbered lines are the LTS ones; 20 reached end of life in April 2026.
    const major = Number(/^node:(\d+)/.exec(image)?.[1]);
    expect(major % 2 === 0 && major >= 24).toBe(true);
  }
  for (const stage of stages) expect(stage).toMatch(/^FROM \$\{NODE_(BUILD_)?IMAGE\} AS /);
});

it('pins the turbo the repository uses', () => {
  const rootPackage = JSON.parse(readRepoFile('package.json')) as { devDependencies: Record<string, string> };
  expect(dockerfile).toContain(`ARG TURBO_VERSION=${rootPackage.devDependencies.turbo}`);
});

it('prunes for every service by default, each a workspace of the repository', () => {
  const services = /ARG SERVICES="([^"]+)"/.exec(dockerfile)?.[1]?.split(' ');
  expect(services?.sort()).toEqual(SERVICES.map((s) => s.name).sort());
  for (const name of services ?? []) {
    const pkg = JSON.parse(readRepoFile(`apps/${name}/package.json`)) as { name: string };
    expect(pkg.name).toBe(`@conduit/${name}`);
  }
});

it('runs as a non-root user, under tini, with a HEALTHCHECK', () => {
  expect(runtime).toMatch(/^USER node$/m);
  expect(runtime.indexOf('USER node')).toBeLessThan(runtime.indexOf('CMD ['));
  expect(runtime).toMatch(/^HEALTHCHECK .*CMD \["node", "\/app\/healthcheck\.mjs"\]$/m);
  expect(runtime).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "--"\]$/m);
  expect(runtime).toMatch(/HOST=0\.0\.0\.0/);
});

it('copies only files that exist (COPY sources outside the build stages)', () => {
  const sources = lines
    .filter((l) => l.startsWith('COPY ') && !l.includes('--from='))
    .flatMap((l) =>
      l
        .replace(/--chown=\S+/, '')
        .split(/\s+/)
        .slice(1, -1),
    )
    .filter((p) => p !== '.' && p !== '');
  expect(sources.length).toBeGreaterThan(0);
  expect(sources.filter((p) => !existsSync(resolve(ROOT, p)))).toEqual([]);
});

it('the start script of the image finds each service at apps/<service>/dist/main.js', () => {
  expect(readRepoFile('deploy/docker/start.sh')).toContain('/app/apps/${SERVICE');
  for (const { name } of SERVICES) expect(existsSync(resolve(ROOT, `apps/${name}/src/main.ts`))).toBe(true);
});

it('.dockerignore keeps installs and builds of the host out of the context', () => {
  const ignored = readRepoFile('.dockerignore').split('\n');
  expect(ignored).toEqual(expect.arrayContaining(['node_modules', '**/node_modules', '**/dist', '.git']));
  expect(ignored).not.toContain('deploy');
});
