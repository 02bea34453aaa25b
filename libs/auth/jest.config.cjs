const preset = require('../../jest.preset.cjs');

// jose ships only ES modules and jest (before Node 24.9) cannot require them, so its files are
// compiled to CommonJS with the same SWC transform as our sources.
module.exports = {
  ...preset,
  displayName: 'auth',
  rootDir: __dirname,
  transform: {
    ...preset.transform,
    '/node_modules/jose/.+\\.js$': preset.transform['^.+\\.ts$'],
  },
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
};
