// s3rver ships no type declarations: the little the tests use. Referenced by src/servers/s3-server.ts, so every
// program that imports the kit has them (e2e suites that start s3rver themselves included).
declare module 's3rver' {
  interface S3rverOptions {
    address?: string;
    port?: number;
    directory?: string;
    silent?: boolean;
    configureBuckets?: { name: string; configs: unknown[] }[];
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    run(): Promise<unknown>;
    close(): Promise<void>;
    httpServer?: import('node:http').Server;
  }
}
