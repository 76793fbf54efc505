// The test kit: what the services', packages' and end-to-end tests share, each concern in its folder.
export * from './postgres/schemas.js';
export * from './redis/redis-keys.js';
export * from './waits/wait-for.js';
export * from './http/http-client.js';
export * from './servers/free-port.js';
export * from './servers/own-redis.js';
export * from './servers/own-postgres.js';
export * from './servers/recording-listener.js';
export * from './servers/silent-listener.js';
export * from './servers/webhook-receiver.js';
export * from './servers/s3-server.js';
export * from './fixtures/parquet-file.js';
export * from './stack/stack.js';
export * from './rpc/rpc-test-caller.js';
export * from './nest/test-microservice.js';
export * from './suites/service-suite.js';
export * from './fixtures/dags.js';
