// Shared jest settings: TypeScript through SWC (fast, no type-check: typecheck is its own target)
// and the tsconfig path aliases mapped to source, so tests run against the code as written.
const path = require('node:path');
const { compilerOptions } = require('./tsconfig.base.json');

const moduleNameMapper = {};
for (const [alias, [target]] of Object.entries(compilerOptions.paths)) {
  moduleNameMapper[`^${alias.replace(/[/\\^$*+?.()|[\]{}]/g, '\\$&')}$`] = path.join(
    __dirname,
    target,
  );
}

// file-type's exports name only `import` and `module-sync` entries, which jest's CommonJS
// resolver does not try: its Node entry is named here.
moduleNameMapper['^file-type$'] = path.join(__dirname, 'node_modules/file-type/index.js');

const ES_MODULE_PACKAGES =
  '(jose|file-type|strtok3|token-types|uint8array-extras|@tokenizer/inflate|@borewit/text-codec)';

const swcTransform = [
  '@swc/jest',
  {
    jsc: { parser: { syntax: 'typescript', decorators: false }, target: 'es2022' },
    module: { type: 'commonjs' },
  },
];

module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': swcTransform,
    // jose and file-type (with its tokenizer packages) ship only ES modules and jest (before
    // Node 24.9) cannot require them, so their files are compiled to CommonJS with the same SWC
    // transform as our sources.
    [`/node_modules/${ES_MODULE_PACKAGES}/.+\\.js$`]: swcTransform,
  },
  transformIgnorePatterns: [`/node_modules/(?!${ES_MODULE_PACKAGES}/)`],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  moduleNameMapper,
  testMatch: ['**/?(*.)+(spec|test).ts'],
  testTimeout: 60_000,
  reporters: ['default', path.join(__dirname, 'tools/jest-summary-reporter.cjs')],
};
