// The folders under tools/ are projects of their own (cluster-test): only the scripts at the top.
module.exports = {
  ...require('../jest.preset.cjs'),
  displayName: 'tools',
  rootDir: __dirname,
  testMatch: ['<rootDir>/*.spec.ts'],
};
