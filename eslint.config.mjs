// ESLint for the whole project: typescript-eslint's recommended rules everywhere, and with type
// information the two rules that catch what can stop a server: a promise nobody awaits or handles, and
// a promise passed where a plain callback is expected.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/results/**', '**/*.js', '**/*.cjs', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // The studio's page (a browser bundle) has its own TypeScript project: DOM, Preact's JSX.
    files: ['studio/src/**/*.ts', 'studio/src/**/*.tsx'],
    languageOptions: { parserOptions: { project: './studio/tsconfig.json', tsconfigRootDir: import.meta.dirname } },
  },
  {
    // The example ERP's own tests and the contract schema tests read free-form JSON answers field by field;
    // the engine, its tests and the bench keep no-explicit-any.
    files: ['examples/erp/*.test.ts', 'examples/erp/test-client.ts', 'test/schemas/contract-schemas.test.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Small functions: the engine's longest read in one screen. Tests (a describe block is one function) are exempt.
    files: ['engine/**/*.ts'],
    ignores: ['engine/**/*.test.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 150, skipBlankLines: true, skipComments: true }] },
  },
);
