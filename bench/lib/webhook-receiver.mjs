// The webhook bench's receiver, in a child process (its own event loop, apart from the dispatcher): answers 204
// to every POST and tells the parent over IPC, in batches, when each webhook-id arrived (wall clock, sub-ms).
import { createServer } from 'node:http';

const arrivals = [];
let flushTimer = null;
const flush = () => {
  flushTimer = null;
  if (arrivals.length > 0) process.send?.({ arrivals: arrivals.splice(0) });
};

const server = createServer((req, res) => {
  const at = performance.timeOrigin + performance.now();
  req.resume();
  req.on('end', () => {
    res.writeHead(204).end();
    arrivals.push([String(req.headers['webhook-id']), at]);
    flushTimer ??= setTimeout(flush, 1);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
