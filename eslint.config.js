import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'data/',
      'coverage/',
      'bench/results/',
      'dist/',
      'dist.tmp-*/',
      'dist.old-*/',
      'dashboard/vendor/',
      '.scratch/',
      '.stryker-tmp/',
      'reports/mutation/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: false }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  { files: ['dashboard/**/*.js'], languageOptions: { globals: { ...globals.browser, Chart: 'readonly' } } },
);
