module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'bus-protocol',
  rootDir: __dirname,
};
