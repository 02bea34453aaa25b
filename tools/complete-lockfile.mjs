// The npm registry reachable where this project is built does not serve every platform build
// of packages with native binaries (darwin, win32, ... builds of @swc/core and unrs-resolver
// answer 404). npm then leaves those optional dependencies out of package-lock.json, and
// `npm ci` refuses the lock as out of sync. This adds a lock entry for each missing optional
// platform package, with the os/cpu that its name declares, so npm ci skips it on other
// platforms exactly as it would with a complete lock. Run after every `npm install`.
import { readFileSync, writeFileSync } from 'node:fs';

const OS_NAMES = [
  'darwin',
  'linux',
  'win32',
  'android',
  'freebsd',
  'openharmony',
  'sunos',
  'netbsd',
  'openbsd',
  'aix',
];
const CPU_BY_TOKEN = {
  arm64: 'arm64',
  x64: 'x64',
  ia32: 'ia32',
  ppc64: 'ppc64',
  s390x: 's390x',
  riscv64: 'riscv64',
  loong64: 'loong64',
  arm: 'arm',
  gnueabihf: 'arm',
  musleabihf: 'arm',
  eabi: 'arm',
  wasm32: 'wasm32',
};

const lockPath = 'package-lock.json';
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const packages = lock.packages;
let added = 0;

for (const [path, entry] of Object.entries(packages)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${path ? `${path}/` : ''}node_modules/${name}`;
    if (packages[nested] || packages[`node_modules/${name}`]) continue;
    const tokens = name.split('/').pop().split('-');
    const os = OS_NAMES.find((candidate) => tokens.includes(candidate));
    const cpu = tokens.map((token) => CPU_BY_TOKEN[token]).find(Boolean);
    if (!os || !cpu) {
      console.error(`cannot tell the platform of ${name}; leaving it out`);
      continue;
    }
    packages[`node_modules/${name}`] = { version: range, cpu: [cpu], optional: true, os: [os] };
    added += 1;
  }
}

writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} platform entries`);
