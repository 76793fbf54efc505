/**
 * The monorepo's import rules, checked by `npm run lint:deps`: no import cycle, no app reaching into another app,
 * no package depending on an app's code, and packages/contracts (read by every process) depending on zod alone.
 * Workspace packages resolve to their built copies (dist/*.js), so a rule on `apps/x` also catches `@conduit/x`:
 * run it after a build.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle makes load order matter and hides a missing module boundary.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-app-to-app',
      severity: 'error',
      comment: 'Services talk over RPC and queues with the schemas in packages/contracts, never by importing code.',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/([^/]+)/', pathNot: '^apps/$1/' },
    },
    {
      name: 'no-package-to-app',
      severity: 'error',
      comment:
        'Packages are shared machinery; an app is a deployable. (The OpenAPI type check reads the document only.)',
      from: { path: '^packages/', pathNot: '^packages/openapi-typecheck/' },
      to: { path: '^apps/' },
    },
    {
      name: 'contracts-only-zod',
      severity: 'error',
      comment:
        'Every process loads the message schemas; they must not drag anything else in. (Specs are not shipped: they may read files.)',
      from: { path: '^packages/contracts/src/', pathNot: '\\.spec\\.ts$' },
      to: {
        pathNot: ['^packages/contracts/src/', '^node_modules/zod/', '^node_modules/\\.pnpm/zod'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'workspace-import-resolves',
      severity: 'error',
      comment:
        'A workspace import that resolves to nothing (no built copy, or a package without an entry, as apps/gateway) ' +
        'is invisible to the rules above; build first (turbo build) so every @conduit import is checked.',
      from: {},
      to: { couldNotResolve: true, path: '^@conduit/' },
    },
  ],
  options: {
    doNotFollow: { path: ['node_modules', '/dist/'] },
    exclude: { path: ['/node_modules/', '\\.d\\.ts$'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      // No 'types': a workspace package's exports list its .d.ts first, and .d.ts files are excluded above, so with it
      // every @conduit/* import was dropped and no rule saw it. Without it they resolve to the built .js.
      conditionNames: ['import', 'require', 'node', 'default'],
    },
    combinedDependencies: false,
  },
};
