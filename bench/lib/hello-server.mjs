// The gateway bench's baseline: a bare Fastify hello-world, run as a child process (see gateway-get.mjs)
// so it does not share an event loop with the load generator. Reports its port over IPC.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));

const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ port: new URL(address).port });
// Exit with the parent, however it ends.
process.on('disconnect', () => void app.close().then(() => process.exit(0)));
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
