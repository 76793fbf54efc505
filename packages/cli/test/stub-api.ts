// A small in-memory Conduit API on a real local port for the CLI's tests: projects, connectors, pipelines and jobs
// with the API's name rules (409 name_taken), runs that stay as a test sets them, and every request recorded.
// `conduit()` runs the CLI in-process against it and answers its exit code, stdout and stderr.
import { mkdtempSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { runCli } from '../src/cli.js';

type Resource = Record<string, unknown> & { id: string; name: string };
export interface SeenRequest {
  method: string;
  path: string;
  body: unknown;
}

const NOW = '2026-11-22T10:15:00.000Z';

export class StubApi {
  readonly requests: SeenRequest[] = [];
  readonly store: Record<'projects' | 'connectors' | 'pipelines' | 'jobs', Resource[]> = {
    projects: [],
    connectors: [],
    pipelines: [],
    jobs: [],
  };
  /** The run every trigger answers and every poll sees, as the test sets it. */
  run: Record<string, unknown> = runOf('running');
  /** Answers a test scripts for one request (`POST /v2/connectors`), before the store's. */
  readonly overrides = new Map<string, (res: ServerResponse, body: unknown) => void>();
  private readonly server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const path = new URL(req.url ?? '/', 'http://stub').pathname;
      const body: unknown = text ? JSON.parse(text) : undefined;
      this.requests.push({ method: req.method ?? '', path, body });
      const override = this.overrides.get(`${req.method} ${path}`);
      if (override) override(res, body);
      else this.answer(req.method ?? '', path, body, res);
    });
  });
  url = '';

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** The requests that change something (every POST and PUT). */
  writes(): SeenRequest[] {
    return this.requests.filter((r) => r.method === 'POST' || r.method === 'PUT');
  }

  add(kind: keyof StubApi['store'], fields: Partial<Resource> & { name: string }): Resource {
    const prefix = { projects: 'prj', connectors: 'con', pipelines: 'pln', jobs: 'job' }[kind];
    const resource: Resource = {
      id: `${prefix}_${String(this.store[kind].length + 1).padStart(26, '0')}`,
      description: null,
      created_at: NOW,
      updated_at: NOW,
      ...fields,
    };
    this.store[kind].push(resource);
    return resource;
  }

  private answer(method: string, path: string, body: unknown, res: ServerResponse): void {
    const list = /^\/v2\/(projects|connectors|pipelines|jobs)$/.exec(path)?.[1] as keyof StubApi['store'] | undefined;
    if (method === 'GET' && list) return send(res, 200, { data: this.store[list], next_cursor: null });
    if (method === 'POST' && list) {
      const fields = body as Resource;
      // Names as the API keeps them: pipelines per project, the rest per tenant.
      const taken = this.store[list].some(
        (r) => r.name === fields.name && (list !== 'pipelines' || r['project_id'] === fields['project_id']),
      );
      if (taken)
        return send(res, 409, problem(409, 'name_taken', `a ${list.slice(0, -1)} named "${fields.name}" exists`));
      const extra =
        list === 'pipelines'
          ? { status: 'valid', version: 1, validation: { errors: [], warnings: [] } }
          : list === 'connectors'
            ? { config: { ...(fields['config'] as object), password: '********' } } // secrets are never answered
            : {};
      return send(res, 201, this.add(list, { ...fields, ...extra }));
    }
    if (method === 'GET' && /^\/v2\/jobs\/[^/]+$/.test(path)) {
      const job = this.store.jobs.find((j) => path.endsWith(j.id));
      return job ? send(res, 200, job) : send(res, 404, problem(404, 'not_found', 'no such job'));
    }
    if (method === 'POST' && /^\/v2\/jobs\/[^/]+\/run$/.test(path)) return send(res, 202, this.run);
    if (method === 'GET' && /\/runs\/[^/]+\/logs$/.test(path)) {
      // A live stream without lines, ended (as the API does) once the test has ended the run.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': open\n\n');
      const watch = setInterval(() => {
        if (['succeeded', 'failed', 'canceled'].includes(String(this.run['status'])))
          res.end('event: end\ndata: {}\n\n');
      }, 20);
      return void res.on('close', () => clearInterval(watch));
    }
    if (method === 'GET' && /\/runs\/[^/]+$/.test(path)) return send(res, 200, this.run);
    send(res, 404, problem(404, 'not_found', `the stub has no ${method} ${path}`));
  }
}

export function runOf(status: string): Record<string, unknown> {
  return {
    id: 'run_00000000000000000000000001',
    job_id: 'job_00000000000000000000000001',
    pipeline_id: 'pln_00000000000000000000000001',
    pipeline_version: 1,
    status,
    trigger: 'manual',
    parameters: {},
    attempt: 1,
    queued_at: NOW,
    started_at: null,
    finished_at: null,
    duration_ms: null,
    error: null,
    nodes: [],
    stats: { rows_read: 0, rows_written: 0 },
  };
}

function problem(status: number, code: string, detail: string): Record<string, unknown> {
  return { type: `/problems/${code}`, title: code, status, code, detail, instance: '/v2/x', request_id: 'req_stub' };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json' });
  res.end(JSON.stringify(body));
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A config file of the tests' own, empty unless a test writes it: no profile of the machine is ever read. */
export const CONFIG = join(mkdtempSync(join(tmpdir(), 'conduit-cli-test-')), 'config.json');

/** `conduit <args>` in-process with these environment variables (and CONDUIT_CONFIG set to {@link CONFIG}). */
export async function conduit(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  const settings: Record<string, string | undefined> = {
    ...{ CONDUIT_URL: undefined, CONDUIT_API_KEY: undefined, CONDUIT_TOKEN: undefined, CONDUIT_PROFILE: undefined },
    ...{ CONDUIT_CONFIG: CONFIG, NO_COLOR: '1' },
    ...env,
  };
  const saved = Object.fromEntries(Object.keys(settings).map((key) => [key, process.env[key]]));
  const set = (values: Record<string, string | undefined>) => {
    for (const [key, value] of Object.entries(values))
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
  };
  set(settings);
  let stdout = '';
  let stderr = '';
  const capture = (write: (text: string) => void) => (chunk: string | Uint8Array) => {
    write(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  };
  const out = jest.spyOn(process.stdout, 'write').mockImplementation(capture((t) => (stdout += t)));
  const err = jest.spyOn(process.stderr, 'write').mockImplementation(capture((t) => (stderr += t)));
  process.exitCode = 0;
  try {
    await runCli(['node', 'conduit', ...args]);
    return { code: Number(process.exitCode ?? 0), stdout, stderr };
  } finally {
    process.exitCode = 0;
    out.mockRestore();
    err.mockRestore();
    set(saved);
  }
}
