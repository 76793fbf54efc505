/**
 * Frees the chunks a run's streams are done with, while any run is open. Every chunk of a COPY stream or a file read
 * is a new Buffer outside V8's heap; V8 frees them only when it next collects, and it counts them so loosely that
 * 30-60 MiB of finished chunks piled up in a copy (measured, docs/reliability.md "Memory"), more than a run's whole
 * limit allows. A young-generation collection every 100 ms (about a millisecond each) frees them while they are
 * young; V8 would run the same collection by itself, only later.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const INTERVAL_MS = 100;

type Collect = (options: { type: 'minor'; execution: 'sync' }) => void;

let collect: Collect | undefined;
let holders = 0;
let timer: NodeJS.Timeout | undefined;

/** V8's collector, as `--expose-gc` gives it, without exposing it to the process's own global scope. */
function collector(): Collect {
  if (collect) return collect;
  const global = (globalThis as { gc?: Collect }).gc;
  if (global) return (collect = global);
  setFlagsFromString('--expose-gc');
  collect = runInNewContext('gc') as Collect;
  return collect;
}

/** Collects young garbage every 100 ms until every holder has released (call the answer once, when the run ends). */
export function holdChunkCollector(): () => void {
  const gc = collector();
  holders += 1;
  timer ??= setInterval(() => gc({ type: 'minor', execution: 'sync' }), INTERVAL_MS).unref();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holders -= 1;
    if (holders === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}
