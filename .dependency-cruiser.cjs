/**
 * The monorepo's import rules, checked by `npm run lint:deps`: no import cycle, no app reaching into another app,
 * no package depending on an app's code, and packages/contracts (read by every process) depending on zod alone.
 * Workspace packages resolve to their sources' built copies, so a rule on `apps/x` also catches `@conduit/x`.
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
  ],
  options: {
    doNotFollow: { path: ['node_modules', '/dist/'] },
    exclude: { path: ['/node_modules/', '\\.d\\.ts$'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    combinedDependencies: false,
  },
};
