import reactHooks from 'eslint-plugin-react-hooks';
import baseConfig from '../../eslint.config.mjs';

// The repository's rules, extended to .tsx (the root config names .ts files only), type-aware
// through this app's two tsconfigs, with the React hooks rules; its boundaries (type:app: libs
// only, never a service) are the root config's.
export default [
  ...baseConfig,
  reactHooks.configs.flat['recommended-latest'],
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.mts'],
    languageOptions: {
      parserOptions: {
        projectService: false,
        project: ['./tsconfig.json', './tsconfig.tooling.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': [
        'error',
        { checksVoidReturn: { arguments: false } },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*'],
              message:
                'The web app runs in the browser: Node modules belong in its tests and build tools.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.test.ts', '**/vite.config.mts', '**/build/**/*.mts'],
    rules: { 'no-restricted-imports': 'off' },
  },
];
