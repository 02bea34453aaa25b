// `npm run deploy:observability`: writes each service's dashboard.json and alerts.yaml from
// catalog.ts; deploy/checks/observability.spec.ts fails when they are stale.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICES } from './catalog';
import { alertRulesOf, dashboardOf } from './render';

for (const service of SERVICES) {
  const dir = join(__dirname, service);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'dashboard.json'), dashboardOf(service));
  writeFileSync(join(dir, 'alerts.yaml'), alertRulesOf(service));
}
console.log(`wrote the dashboards and alert rules of ${SERVICES.join(', ')}`);
