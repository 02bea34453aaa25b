import baseConfig from '../../eslint.config.mjs';

// The repository's rules, with the boundaries of a browser-test project: it may use the libs
// (sessions from @wap/auth, test servers from @wap/testing), never a service's code; the
// platform it tests runs as its own process.
export default [
  ...baseConfig,
  {
    files: ['**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          depConstraints: [
            { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'scope:web', onlyDependOnLibsWithTags: ['scope:shared'] },
          ],
        },
      ],
    },
  },
];
