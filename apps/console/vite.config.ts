// The console is a static bundle (dist/) that the gateway serves at `/`; `npm run dev` proxies the API to a gateway
// on CONDUIT_URL (default the local stack's http://127.0.0.1:3000).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const gateway = process.env.CONDUIT_URL ?? 'http://127.0.0.1:3000';

export default defineConfig({
  resolve: {
    // The SDK makes Idempotency-Keys with node:crypto's randomUUID; the browser has its own (see the shim).
    alias: { 'node:crypto': fileURLToPath(new URL('./src/sdk/browser-crypto.ts', import.meta.url)) },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    rollupOptions: {
      // React Flow marks itself "use client" for server-rendering frameworks; a plain bundle has nothing to keep.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  server: {
    proxy: Object.fromEntries(['/v2', '/docs', '/healthz', '/readyz'].map((path) => [path, gateway])),
  },
  test: {
    environment: 'happy-dom',
    include: ['test/**/*.test.tsx', 'src/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
  },
});
