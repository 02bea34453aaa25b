module.exports = { ...require('../../jest.preset.cjs'), displayName: 'http', rootDir: __dirname };
