// ESLint for the whole monorepo: typescript-eslint's type-checked rules on every package's sources and tests (each
// package's tsconfig.lint.json puts its tests in the program), the plain recommended rules on the Node scripts.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**', 'packages/sdk/src/generated/**'],
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
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    languageOptions: { globals: { ...globals.node } },
  },
  prettier,
);
