import baseConfig from '../../eslint.config.mjs';

// The repository's rules; its boundaries (type:e2e: libs only, never a service's code: the
// platform it tests runs as its own process) are the root config's.
export default baseConfig;
