import { execFileSync } from 'node:child_process';
import { bindUserSql, type BindInput } from '../sql-binder.js';
import { userSqlProblem } from '../user-sql.js';
import { isolatedBind, isolatedSqlProblem } from './isolated-check.js';

describe('isolatedSqlProblem', () => {
  it('answers what userSqlProblem answers, from a child process', async () => {
    for (const [sql, kind] of [
      ["select * from read_text('/etc/passwd')", 'select'],
      ["select current_setting('threads') as t", 'select'],
      ["attach ':memory:' as other", 'statement'],
      ['select 1; select 2', 'select'],
      ['select * from range(3)', 'select'],
    ] as const) {
      expect([sql, await isolatedSqlProblem(sql, kind, 10_000)]).toEqual([sql, await userSqlProblem(sql, kind)]);
    }
  });

  it('bounds the memory a folded constant may take: the check answers, the process does not grow', async () => {
    const before = process.memoryUsage().rss;
    const started = performance.now();
    // A 2 GB string folded while binding (8-9 GB of the process in userSqlProblem itself).
    const problem = await isolatedSqlProblem("select repeat('a', 2000000000) as x", 'select', 10_000);
    expect(problem === null || typeof problem === 'string').toBe(true);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
  });

  it('answers undefined at its time limit for a statement that binds for long, and the next check still answers', async () => {
    // Binding a 600-term sum takes seconds here (it grows with the cube of the terms).
    const slow = `select ${Array.from({ length: 600 }, () => '1').join(' + ')} as n`;
    const started = performance.now();
    expect(await isolatedSqlProblem(slow, 'select', 200)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(await isolatedSqlProblem("select getenv('HOME') as h", 'select', 10_000)).toMatch(/getenv/);
  });

  it("does not end another caller's check when one caller's time is up", async () => {
    const slow = `select ${Array.from({ length: 600 }, () => '1').join(' + ')} as n`;
    const [abandoned, other] = await Promise.all([
      isolatedSqlProblem(slow, 'select', 100),
      isolatedSqlProblem("create table t as select getenv('HOME') as h", 'statement', 10_000),
    ]);
    expect(abandoned).toBeUndefined();
    expect(other).toMatch(/getenv/);
  });

  it('sends the checks in flight to a new child when the child dies', async () => {
    // A check that binds for about a second here, long enough to kill its child under it.
    const sql = `select ${Array.from({ length: 400 }, () => '1').join(' + ')} as n`;
    const answer = isolatedSqlProblem(sql, 'select', 30_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const children = execFileSync('pgrep', ['-P', String(process.pid)], { encoding: 'utf8' })
      .trim()
      .split('\n');
    for (const pid of children) process.kill(Number(pid), 'SIGKILL');
    expect(await answer).toBeNull();
  });

  it('answers undefined without a check when no time is left, and clamps a timeout past what a timer takes', async () => {
    expect(await isolatedSqlProblem('select 1', 'select', Number.POSITIVE_INFINITY)).toBeNull();
    expect(await isolatedSqlProblem('select 1', 'select', 0)).toBeUndefined();
  });

  it('binds in the child as bindUserSql does, and answers undefined when time is up', async () => {
    const inputs: BindInput[] = [{ name: 'src', columns: [{ name: 'amount', type: 'DECIMAL(12,2)' }] }];
    for (const sql of ['select amount * 2 as twice from src', 'select nope from src', 'select * from other']) {
      expect([sql, await isolatedBind(sql, inputs, 10_000)]).toEqual([sql, await bindUserSql(sql, inputs)]);
    }
    const slow = `select ${Array.from({ length: 600 }, () => 'amount').join(' + ')} as n from src`;
    expect(await isolatedBind(slow, inputs, 100)).toBeUndefined();
  });

  it("bounds what binding folds (a table function's argument): the process does not grow", async () => {
    const before = process.memoryUsage().rss;
    const started = performance.now();
    const outcome = await isolatedBind("select * from unnest([repeat('a', 2000000000)])", [], 10_000);
    expect(outcome?.kind).toBe('unbindable');
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
  });
});
