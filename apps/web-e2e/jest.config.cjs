module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'web-e2e',
  rootDir: __dirname,
  // A browser test starts the whole platform and drives Chromium through several pages.
  testTimeout: 180_000,
};
