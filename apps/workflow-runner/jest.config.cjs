module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'workflow-runner',
  rootDir: __dirname,
};
