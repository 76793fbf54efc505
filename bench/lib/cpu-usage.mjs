// CPU time taken by processes during a window, from /proc (Linux): shows which process of the stack
// (or PostgreSQL / Redis) the cores went to while it was under load.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SEC = 100; // USER_HZ on Linux

/**
 * A process's own CPU (utime + stime) and that of its children it has reaped (cutime + cstime), in seconds,
 * or undefined once it is gone. The children's part matters for PostgreSQL: a backend that exits inside the
 * window (a connection opened per node) is only seen in the postmaster's cutime.
 */
function cpuTimes(pid) {
  const f = statFields(`/proc/${pid}/stat`);
  return f && { own: (f[11] + f[12]) / TICKS_PER_SEC, children: (f[13] + f[14]) / TICKS_PER_SEC };
}

/**
 * The numeric fields of a /proc stat file after "(comm)" (state is field 3, utime 14, stime 15, cutime 16, cstime
 * 17: here at 11-14), or undefined once the process or thread is gone.
 */
function statFields(path) {
  try {
    const stat = readFileSync(path, 'utf8');
    return stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
  } catch {
    return undefined;
  }
}

/** Pids whose command name is one of names (e.g. postgres, redis-server). */
function pidsNamed(names) {
  const pids = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (names.includes(readFileSync(`/proc/${entry}/comm`, 'utf8').trim())) pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

/** { label: Map(pid -> cpuTimes) }; the postgres and redis groups are looked up again each time (backends come and go). */
function snapshot(groups) {
  const all = { ...groups, postgres: pidsNamed(['postgres']), redis: pidsNamed(['redis-server']) };
  return Object.fromEntries(
    Object.entries(all).map(([label, pids]) => [
      label,
      new Map(pids.map((pid) => [pid, cpuTimes(pid)]).filter(([, t]) => t)),
    ]),
  );
}

/**
 * CPU seconds a group used between two snapshots: what its processes alive at the end used since the start (all of
 * it for one started meanwhile), plus what its processes reaped meanwhile (their cutime growth) less the part of
 * those that was already counted at the start. Exact as long as a process that exits is reaped by one of the group
 * (the postmaster reaps its backends); a child's own children are in its cutime once it is reaped.
 */
function usedSeconds(before, after) {
  let used = 0;
  for (const [pid, end] of after) {
    const start = before.get(pid);
    used += end.own - (start?.own ?? 0);
    if (start) used += end.children - start.children;
  }
  for (const [pid, start] of before) if (!after.has(pid)) used -= start.own;
  return Math.max(0, used);
}

/**
 * Starts a CPU account over groups ({ label: pid[] } plus every postgres and redis-server process of the machine);
 * the returned function ends it and answers { seconds: { label: cpu seconds }, wallSec }.
 */
export function startCpuAccount(groups) {
  const before = snapshot(groups);
  const started = process.hrtime.bigint();
  return () => {
    const after = snapshot(groups);
    const wallSec = Number(process.hrtime.bigint() - started) / 1e9;
    const seconds = Object.fromEntries(
      Object.keys(after).map((label) => [label, usedSeconds(before[label], after[label])]),
    );
    return { seconds, wallSec };
  };
}

/**
 * Starts a window over groups ({ label: pid[] } plus every postgres and redis-server process);
 * the returned function ends it and gives each group's CPU use in % of one core.
 */
export function startCpuWindow(groups) {
  const end = startCpuAccount(groups);
  return () => {
    const { seconds, wallSec } = end();
    return Object.fromEntries(
      Object.entries(seconds).map(([label, used]) => [label, Math.round((used / wallSec) * 100)]),
    );
  };
}

/** A process's main thread's CPU (the JS event loop; the task whose id is the pid), in seconds, or undefined. */
function mainThreadSeconds(pid) {
  const f = statFields(`/proc/${pid}/task/${pid}/stat`);
  return f && (f[11] + f[12]) / TICKS_PER_SEC;
}

/**
 * Starts an account of the main threads of groups ({ label: pid[] }: Node processes); the returned function answers
 * { label: cpu seconds } of their event loops. The rest of a Node process's CPU is its other threads: libuv's pool
 * (file system calls, and a native addon's work such as DuckDB's statements) and V8's garbage collector helpers.
 */
export function startMainThreadAccount(groups) {
  const read = () =>
    Object.fromEntries(
      Object.entries(groups).map(([label, pids]) => [
        label,
        pids.reduce((s, pid) => s + (mainThreadSeconds(pid) ?? 0), 0),
      ]),
    );
  const before = read();
  return () => {
    const after = read();
    return Object.fromEntries(Object.keys(after).map((label) => [label, Math.max(0, after[label] - before[label])]));
  };
}
