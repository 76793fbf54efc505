// Where a service spent its CPU, from a V8 .cpuprofile (as written by node --cpu-prof): self time by
// package and by function. Used by the gateway bench's --profile mode.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

function packageOf(rel, url, functionName) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const inModules = rel.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (inModules) return inModules[1];
  const workspace = rel.match(/^(apps|packages)\/([^/]+)/);
  return workspace ? `${workspace[1]}/${workspace[2]}` : rel;
}

function ranked(totals, totalUs, limit) {
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, us]) => ({ name, self_ms: Math.round(us / 1000), pct: Math.round((us / totalUs) * 1000) / 10 }));
}

/** { byPackage, top }: self time (ms, % of sampled time), highest first; paths relative to root. */
export function summarizeProfile(profilePath, root, limit = 15) {
  const profile = JSON.parse(readFileSync(profilePath, 'utf8'));
  const frameById = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const byFunction = new Map();
  const byPackage = new Map();
  let totalUs = 0;
  // timeDeltas[i] is the time before samples[i]: charge it to that sample's frame.
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    const { functionName, url, lineNumber } = frameById.get(id);
    const path = url.replace(/^file:\/\//, '');
    const rel = path.startsWith('/') ? relative(root, path) : path;
    const fn = `${functionName || '(anonymous)'}${rel ? ` ${rel}:${lineNumber + 1}` : ''}`;
    const pkg = packageOf(rel, url, functionName);
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
    totalUs += us;
  });
  return { byPackage: ranked(byPackage, totalUs, limit), top: ranked(byFunction, totalUs, limit) };
}

/** Prints the summary of every .cpuprofile in `dir` (self time by package, then the top functions). */
export function printProfiles(dir, root) {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length === 0) console.log(`no CPU profile was written to ${dir} (a service did not exit cleanly)`);
  for (const file of files) {
    const { top, byPackage } = summarizeProfile(join(dir, file), root);
    console.log(`\n--- ${file}: self time by package`);
    for (const p of byPackage.slice(0, 12)) console.log(`${String(p.pct).padStart(6)}%  ${p.name}`);
    console.log(`--- ${file}: top functions by self time`);
    for (const f of top) console.log(`${String(f.pct).padStart(6)}%  ${f.name}`);
  }
  console.log(`\nprofiles kept in ${dir} (open them in Chrome DevTools > Performance)`);
}
