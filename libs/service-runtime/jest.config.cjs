module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'service-runtime',
  rootDir: __dirname,
};
