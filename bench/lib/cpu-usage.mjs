// CPU time taken by processes during a window, from /proc (Linux): shows which process of the stack
// (or PostgreSQL / Redis) the cores went to while the gateway was under load.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SEC = 100; // USER_HZ on Linux

/** utime + stime of a process in seconds, or undefined once it is gone. */
function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after "(comm)": state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SEC;
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

/**
 * Starts a window over groups ({ label: pid[] } plus every postgres and redis-server process);
 * the returned function ends it and gives each group's CPU use in % of one core.
 */
export function startCpuWindow(groups) {
  const all = { ...groups, postgres: pidsNamed(['postgres']), redis: pidsNamed(['redis-server']) };
  const before = Object.fromEntries(Object.entries(all).map(([label, pids]) => [label, pids.map(cpuSeconds)]));
  const started = process.hrtime.bigint();
  return () => {
    const wallSec = Number(process.hrtime.bigint() - started) / 1e9;
    return Object.fromEntries(
      Object.entries(all).map(([label, pids]) => {
        const used = pids.reduce((sum, pid, i) => sum + ((cpuSeconds(pid) ?? before[label][i] ?? 0) - (before[label][i] ?? 0)), 0);
        return [label, Math.round((used / wallSec) * 100)];
      }),
    );
  };
}
