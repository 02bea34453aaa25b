module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'workspace-directory',
  rootDir: __dirname,
};
