module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'webhook-ingest',
  rootDir: __dirname,
};
