const preset = require('../../jest.preset.cjs');

// @wap/auth imports jose, which ships only ES modules; jest (before Node 24.9) cannot require
// them, so jose is compiled to CommonJS with the same SWC transform as our sources.
module.exports = {
  ...preset,
  displayName: 'storage',
  rootDir: __dirname,
  transform: {
    ...preset.transform,
    '/node_modules/jose/.+\\.js$': preset.transform['^.+\\.ts$'],
  },
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
};
