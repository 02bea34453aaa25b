module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'mcp-registry',
  rootDir: __dirname,
};
