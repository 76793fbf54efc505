// The web console (apps/console) at `/`: its built files as they are, and index.html for any other GET path that is
// not the API's, so a reloaded or shared client route (/pipelines/pip_1) opens the console. The API's own paths
// (/v2, /docs, /healthz, /readyz, /metrics) and missing files keep the API's 404/405 problems.
import { existsSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const API_PATHS = /^\/(v2|docs|healthz|readyz|metrics)(\/|$)/;
/** A last segment with a dot names a file: a missing one is a 404, not the console's page. */
const FILE_PATH = /\/[^/]*\.[^/]*$/;

// The bundle loads only its own files; React Flow positions nodes with inline styles.
const INDEX_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-cache',
  'content-security-policy':
    "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
};

export const CONSOLE_NOT_BUILT =
  'The web console is not built. Build it with `npx turbo run build --filter=@conduit/console` (or `npm run build`),\n' +
  'then restart the gateway. The API is at /v2 and its documentation at /docs.\n';

/**
 * apps/console/dist beside this app, in the repository as in the image (both keep apps/<name>/dist). Not a package
 * dependency: the console is built on the SDK, whose types are generated from this gateway's document.
 */
export function defaultConsoleDir(): string {
  return fileURLToPath(new URL('../../../console/dist', import.meta.url));
}

export interface ConsoleFiles {
  /** The built console (with index.html); when absent or unbuilt, `/` says how to build it. */
  dir: string | undefined;
}

/** Registers the console's routes; call before the app is initialised. Answers whether a built console was found. */
export function serveConsole(fastify: FastifyInstance, { dir }: ConsoleFiles): boolean {
  const indexFile = dir === undefined ? undefined : join(dir, 'index.html');
  const index = indexFile !== undefined && existsSync(indexFile) ? readFileSync(indexFile) : undefined;
  if (dir !== undefined && index !== undefined) {
    const assetsDir = join(dir, 'assets') + sep;
    void fastify.register(fastifyStatic, {
      root: dir,
      prefix: '/',
      // Only the files present at start (no directory walk per request). index.html is left to the fallback below,
      // always with its security headers (a route of its own here would send it without them: framable).
      wildcard: false,
      globIgnore: ['index.html'],
      index: false,
      decorateReply: false,
      setHeaders: (res, path) => {
        // Vite puts a content hash in every asset's name: a new build makes new names. (Tested below the console's
        // own folder, so a CONSOLE_DIR that happens to sit under an `assets` folder changes nothing.)
        if (path.startsWith(assetsDir)) res.header('cache-control', 'public, max-age=31536000, immutable');
      },
    });
  }
  fastify.get('/*', (request: FastifyRequest<{ Params: { '*': string } }>, reply: FastifyReply) => {
    // The path as the router read it (decoded, origin of an absolute-form target dropped), not as sent: `/%762/x`
    // is an API path too, and keeps the API's 404.
    const path = `/${request.params['*']}`;
    if (API_PATHS.test(path) || (FILE_PATH.test(path) && path !== '/index.html')) return reply.callNotFound();
    // A client route is a page only for a browser (its navigations accept text/html): an API client that asks for
    // /projects or /v3/projects keeps the API's 404 problem, not a 200 of HTML.
    if (path !== '/' && !acceptsHtml(request)) return reply.callNotFound();
    if (index !== undefined) return reply.headers(INDEX_HEADERS).send(index);
    if (path !== '/') return reply.callNotFound();
    return reply.code(404).type('text/plain; charset=utf-8').send(CONSOLE_NOT_BUILT);
  });
  return index !== undefined;
}

function acceptsHtml(request: FastifyRequest): boolean {
  return /\btext\/html\b/i.test(request.headers.accept ?? '');
}
