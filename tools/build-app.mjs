// Bundles one app for deployment: our TypeScript (libs resolved through the tsconfig path
// aliases) into dist/<projectRoot>/src/main.js, npm packages left external (the image ships
// node_modules), and the migrations of the services it runs copied beside it.
import { build } from 'esbuild';
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const [projectName, projectRoot] = process.argv.slice(2);
if (!projectName || !projectRoot) {
  console.error('usage: node tools/build-app.mjs <projectName> <projectRoot>');
  process.exit(2);
}
const outRoot = join('dist', projectRoot);
rmSync(outRoot, { recursive: true, force: true });

await build({
  entryPoints: [join(projectRoot, 'src/main.ts')],
  outfile: join(outRoot, 'src/main.js'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  packages: 'external',
  tsconfig: 'tsconfig.base.json',
  logLevel: 'warning',
});

// The embedded launcher runs every service, so it carries every service's migrations.
const servicesWithMigrations =
  projectName === 'embedded'
    ? readdirSync('apps').filter((app) => existsSync(join('apps', app, 'migrations')))
    : existsSync(join(projectRoot, 'migrations'))
      ? [projectRoot.split('/').pop()]
      : [];
for (const service of servicesWithMigrations) {
  cpSync(join('apps', service, 'migrations'), join('dist/apps', service, 'migrations'), {
    recursive: true,
  });
}
console.log(`built ${projectName} → ${join(outRoot, 'src/main.js')}`);
