// Loaded into a service with NODE_OPTIONS=--import (Node 20 refuses --cpu-prof there). SIGWINCH starts
// sampling the CPU (the bench sends it when the measured run starts, so boot and warm-up stay out; Nest's
// shutdown hooks take SIGUSR2, and SIGWINCH is ignored by a process without this preload);
// SIGTERM writes <BENCH_PROFILE_DIR>/<service>-<pid>.cpuprofile before the service's own shutdown runs.
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

const dir = process.env.BENCH_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  let started = false;
  // The main-thread session answers synchronously, so each step is done when post() returns.
  process.on('SIGWINCH', () => {
    if (started) return;
    started = true;
    session.post('Profiler.enable');
    session.post('Profiler.start');
  });
  process.prependListener('SIGTERM', () => {
    if (started) {
      session.post('Profiler.stop', (err, result) => {
        if (err) return void process.stderr.write(`cpu profile not written: ${err.message}\n`);
        const service = basename(dirname(dirname(process.argv[1] ?? 'unknown/dist/main.js')));
        writeFileSync(join(dir, `${service}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
      });
    }
    session.disconnect();
    // Without a handler of its own the service would now linger: leave as SIGTERM would have.
    if (process.listenerCount('SIGTERM') === 1) process.exit(0);
  });
}
