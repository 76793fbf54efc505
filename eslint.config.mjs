// ESLint for the whole monorepo: typescript-eslint's type-checked rules on every package's sources and tests (each
// package's tsconfig.lint.json puts its tests in the program), the plain recommended rules on the Node scripts.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/coverage/**',
      'packages/sdk/src/generated/**',
      // Written by the SDK's type-check test (gitignored).
      'packages/sdk/typecheck/generated/**',
      'packages/openapi-typecheck/flow/generated/**',
      'e2e/artifacts/**',
    ],
  },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        project: [
          'apps/*/tsconfig.lint.json',
          'packages/*/tsconfig.lint.json',
          'deploy/tsconfig.lint.json',
          'packages/*/typecheck/tsconfig.json',
          'packages/openapi-typecheck/flow/tsconfig.json',
          'e2e/tsconfig.json',
        ],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // A leading underscore marks a binding kept on purpose (a rest sibling that omits a key, a callback's unused
      // parameter, a tuple's skipped element).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // Passing on what was caught or an AbortSignal's reason (typed unknown/any) is rejecting with the original
      // error, as only-throw-error already allows for a rethrow; wrapping it would change what callers see.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
    },
  },
  {
    // A DuckDB result is read with readAll (@conduit/connectors): runAndReadAll fetches every chunk of a result DuckDB
    // has already materialized as one more task of libuv's pool each (packages/connectors/src/duckdb/read-all.ts).
    files: ['apps/*/src/**/*.ts', 'packages/*/src/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='runAndReadAll']",
          message: "Read a DuckDB result with readAll(x.run(...)) from '@conduit/connectors' (duckdb/read-all.ts).",
        },
      ],
    },
  },
  {
    // The console's React components (apps/console): the same type-checked rules, its tsconfig.lint.json has JSX.
    files: ['**/*.tsx'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { project: ['apps/console/tsconfig.lint.json'], tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.browser },
    },
  },
  {
    // Tests only. jest's asymmetric matchers (expect.any, expect.stringMatching, expect.objectContaining) are typed
    // `any` by @types/jest, so every expected object holding one is an "unsafe" assignment or argument; and test
    // doubles stand in for async interfaces (a driver's AsyncIterable of batches, a repository's Promise) with canned
    // answers, which is an async function with nothing to await. Member access and calls on `any` stay checked.
    files: ['**/*.spec.ts', '**/test/**/*.ts', 'e2e/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Compiled under tsc --strict against types that src/typed-client.spec.ts generates from the OpenAPI document
    // (and checked there for no cast and no `any`); without the generated file every type here is unresolved.
    files: ['packages/openapi-typecheck/flow/**'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    languageOptions: { globals: { ...globals.node } },
  },
  prettier,
);
