export type { RedisStreamsOptions } from './options.js';
export { requestStreamKey, replyChannel } from './options.js';
export type { RedisStreamsEvents, RedisStreamsStatus } from './connection-events.js';
export { RedisStreamsServer, type RedisStreamsServerOptions } from './redis-streams.server.js';
export { RedisStreamsClient, type CallOptions } from './redis-streams.client.js';
export { RedisStreamsContext } from './redis-streams.context.js';
export { RpcTimeoutError } from './rpc-timeout.error.js';
export { RedisUnavailableError } from './redis-unavailable.error.js';
export { rpcCall } from './rpc-call.js';
