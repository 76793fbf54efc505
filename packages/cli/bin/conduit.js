#!/usr/bin/env node
// The `conduit` command. A committed file, so that `npm ci` links it before anything is built; the CLI is dist/.
import { existsSync } from 'node:fs';

const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write(
    'conduit is not built yet: run `npx turbo run build --filter=@conduit/cli` (or `npm run build`) first.\n',
  );
  process.exit(1);
}
await import(main.href);
