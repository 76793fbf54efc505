import { z } from 'zod';
import {
  AppError,
  cursorLists,
  decodeCursor,
  encodeCursor,
  fieldErrorsOf,
  handleRpc,
  isId,
  pageOf,
  parseOrThrow,
  problemDocument,
  projectCreateSchema,
  Tagged,
  validationFailed,
} from './index.js';

describe('ids', () => {
  it('are recognised by their prefix and ULID', () => {
    const a = 'prj_01JD3V6Y9ZQ8W1S3X5C7E9G2HK';
    expect(isId('project', a)).toBe(true);
    expect(isId('pipeline', a)).toBe(false);
    expect(isId('project', 'prj_' + 'x'.repeat(5000))).toBe(false);
    expect(isId('project', 'prj_01')).toBe(false);
  });
});

describe('problem documents', () => {
  it('map a domain error to RFC 9457 fields with its status', () => {
    const doc = problemDocument(
      validationFailed([{ path: 'name', code: 'required', message: 'is required' }]).toDomainError(),
      '/v2/projects',
      'req_1',
    );
    expect(doc).toEqual({
      type: '/problems/validation-failed',
      title: 'Validation failed',
      status: 422,
      code: 'validation_failed',
      detail: '1 field is invalid',
      errors: [{ path: 'name', code: 'required', message: 'is required' }],
      instance: '/v2/projects',
      request_id: 'req_1',
    });
    expect(problemDocument({ code: 'name_taken', detail: 'x' }, '/', 'r').status).toBe(409);
  });
});

describe('field errors', () => {
  it('lists every field at fault, unknown fields included', () => {
    try {
      parseOrThrow(projectCreateSchema, { name: '', descripton: 'typo', template: 5 });
      throw new Error('expected a validation error');
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      const errors = (err as AppError).errors ?? [];
      expect(errors.map((e) => [e.path, e.code]).sort()).toEqual(
        [
          ['descripton', 'unknown_field'],
          ['name', 'too_short'],
          ['template', 'invalid_type'],
        ].sort(),
      );
    }
  });

  it('refuses control characters in names, and in descriptions but for line breaks and tabs', () => {
    const errorsOf = (body: unknown) => {
      const res = projectCreateSchema.safeParse(body);
      return res.success ? [] : fieldErrorsOf(res.error).map((e) => [e.path, e.code]);
    };
    expect(errorsOf({ name: 'job \u001b]0;pwned\u0007', description: 'x\u009b' })).toEqual([
      ['name', 'invalid_format'],
      ['description', 'invalid_format'],
    ]);
    expect(errorsOf({ name: '  Ünïcode ✓ name  ', description: 'two\nlines\tand a tab\r\n' })).toEqual([]);
  });

  it('formats nested paths and marks missing fields as required', () => {
    const schema = z.strictObject({ a: z.object({ b: z.array(z.object({ c: z.string() })) }) });
    const res = schema.safeParse({ a: { b: [{ c: 'x' }, {}] } }, { reportInput: true });
    expect(res.success).toBe(false);
    if (!res.success)
      expect(fieldErrorsOf(res.error)).toEqual([{ path: 'a.b[1].c', code: 'required', message: 'is required' }]);
  });
});

describe('cursors', () => {
  const projects = cursorLists.projects;
  const prj = (c: string) => `prj_01JD3V6Y9ZQ8W1S3X5C7E9G2H${c}`;
  it('round-trip and reject foreign values', () => {
    expect(decodeCursor(encodeCursor({ after: prj('K'), list: projects }), projects)).toEqual({
      after: prj('K'),
      list: projects,
    });
    expect(decodeCursor('not-a-cursor', projects)).toBeUndefined();
    expect(decodeCursor(Buffer.from('{"after":5}').toString('base64url'), projects)).toBeUndefined();
    const logs = cursorLists.runLogs('run_1');
    expect(decodeCursor(encodeCursor({ after: '42', list: logs }), logs)).toEqual({ after: '42', list: logs });
    // A NUL (PostgreSQL refuses it in text: was a 500), control characters and other scripts were never issued.
    for (const after of ['\u0000', `${prj('K')}\u0000`, 'a\nb', 'prj 1', 'é'])
      expect(decodeCursor(encodeCursor({ after, list: projects }), projects)).toBeUndefined();
  });

  it("are a list's own: another list's, another job's runs', or one naming no list are refused", () => {
    const run = 'run_01JD3V6Y9ZQ8W1S3X5C7E9G2HK';
    const jobs = encodeCursor({ after: 'job_01JD3V6Y9ZQ8W1S3X5C7E9G2HK', list: cursorLists.jobs });
    expect(decodeCursor(jobs, projects)).toBeUndefined();
    const runsOfA = encodeCursor({ after: run, list: cursorLists.runs('job_a') });
    expect(decodeCursor(runsOfA, cursorLists.runs('job_b'))).toBeUndefined();
    expect(decodeCursor(runsOfA, cursorLists.runs('job_a'))).toEqual({ after: run, list: 'runs:job_a' });
    expect(decodeCursor(Buffer.from(`{"after":"${prj('K')}"}`).toString('base64url'), projects)).toBeUndefined();
  });

  it('page from limit + 1 rows', () => {
    const rows = [{ id: prj('C') }, { id: prj('B') }, { id: prj('A') }];
    const page = pageOf(rows, 2, (r) => r.id, projects);
    expect(page.data).toEqual([{ id: prj('C') }, { id: prj('B') }]);
    expect(decodeCursor(page.next_cursor ?? '', projects)).toEqual({ after: prj('B'), list: projects });
    expect(pageOf(rows, 3, (r) => r.id, projects).next_cursor).toBeNull();
  });
});

describe('handleRpc', () => {
  const ctx = { tenant_id: 'tnt_1', scopes: ['read'], request_id: 'req_1' };
  const noop = () => undefined;

  it('answers data, with an etag when tagged', async () => {
    const reply = await handleRpc(
      'catalog.projects.get',
      { ctx, data: { id: 'prj_x' } },
      async (d) => new Tagged({ id: d.id }, '"e"'),
      noop,
    );
    expect(reply).toEqual({ ok: true, data: { id: 'prj_x' }, etag: '"e"' });
  });

  it('answers domain errors as data and hides unexpected ones', async () => {
    const seen: unknown[] = [];
    const domain = await handleRpc(
      'catalog.projects.get',
      { ctx, data: { id: 'x' } },
      async () => {
        throw new AppError('not_found', 'project not found');
      },
      noop,
    );
    expect(domain).toEqual({ ok: false, error: { code: 'not_found', detail: 'project not found' } });
    const unexpected = await handleRpc(
      'catalog.projects.get',
      { ctx, data: { id: 'x' } },
      async () => {
        throw new Error('select * from secret_table');
      },
      (e) => seen.push(e),
    );
    expect(unexpected).toEqual({ ok: false, error: { code: 'internal', detail: 'internal error' } });
    expect(seen).toHaveLength(1);
  });

  it('rejects a request that breaks the pattern schema', async () => {
    const reply = await handleRpc(
      'catalog.projects.create',
      { ctx, data: { body: { name: 7 } } },
      async () => 'never',
      noop,
    );
    expect(reply.ok).toBe(false);
    if (!reply.ok) expect(reply.error.code).toBe('validation_failed');
  });
});
