module.exports = { ...require('../../jest.preset.cjs'), displayName: 'egress', rootDir: __dirname };
