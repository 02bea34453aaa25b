import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { collectProcessMetrics, metrics, renderMetrics } from '@wap/observability';
import { OBSERVABILITY, SERVICES, type ServiceName } from '../observability/catalog';
import { alertRulesOf, dashboardOf } from '../observability/render';

const observabilityDir = join(__dirname, '..', 'observability');
const read = (service: ServiceName, file: string) =>
  readFileSync(join(observabilityDir, service, file), 'utf8');

/** Every metric family a service's /metrics serves, with the labels its series carry. */
async function exportedFamilies(): Promise<Map<string, Set<string>>> {
  collectProcessMetrics('observability-check');
  const families = new Map<string, Set<string>>();
  for (const line of (await renderMetrics()).body.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type?.[1]) families.set(type[1], new Set(['service']));
  }
  for (const metric of Object.values(metrics)) {
    const { name, labelNames } = metric as unknown as { name: string; labelNames: string[] };
    for (const label of labelNames) families.get(name)?.add(label);
  }
  return families;
}

/** The series an expression selects (`name{a="b"}`), and the labels it groups by. */
function usesOf(expr: string): { metric: string; labels: string[] }[] {
  const grouped = [...expr.matchAll(/\bby \(([^)]*)\)/g)].flatMap(([, list = '']) =>
    list.split(',').map((label) => label.trim()),
  );
  return [...expr.matchAll(/\b([a-z_]+)\{([^}]*)\}/g)].map(([, metric = '', selector = '']) => ({
    metric,
    labels: [
      ...[...selector.matchAll(/([a-z_]+)\s*(?:=~|!=|=)/g)].map(([, label = '']) => label),
      ...grouped,
    ],
  }));
}

/** A histogram's series are its family's name with _bucket (and `le`), _count or _sum. */
function familyOf(metric: string, families: Map<string, Set<string>>): Set<string> | undefined {
  const base = metric.replace(/_(bucket|count|sum)$/, '');
  const family = families.get(metric) ?? families.get(base);
  return family && metric.endsWith('_bucket') ? new Set([...family, 'le']) : family;
}

describe('dashboards and alert rules (deploy/observability)', () => {
  test.each(SERVICES)(
    '%s: the files are what catalog.ts writes (npm run deploy:observability)',
    (service) => {
      expect(read(service, 'dashboard.json')).toBe(dashboardOf(service));
      expect(read(service, 'alerts.yaml')).toBe(alertRulesOf(service));
    },
  );

  test.each(SERVICES)(
    '%s: every metric and label they use is one the services export',
    async (service) => {
      const families = await exportedFamilies();
      const dashboard = JSON.parse(read(service, 'dashboard.json')) as {
        panels: { targets: { expr: string }[] }[];
      };
      const rules = (
        parse(read(service, 'alerts.yaml')) as { groups: { rules: { expr: string }[] }[] }
      ).groups.flatMap((group) => group.rules);
      const expressions = [
        ...dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr)),
        ...rules.map((rule) => rule.expr),
      ];
      expect(expressions.length).toBeGreaterThan(0);
      for (const expr of expressions) {
        expect(expr).toContain(`service="${service}"`);
        for (const { metric, labels } of usesOf(expr)) {
          const family = familyOf(metric, families);
          expect({ expr, metric, known: family !== undefined }).toEqual({
            expr,
            metric,
            known: true,
          });
          const unknown = labels.filter((label) => !family?.has(label));
          expect({ expr, metric, unknown }).toEqual({ expr, metric, unknown: [] });
        }
      }
    },
  );

  test.each(SERVICES)('%s: every alert has a severity, a wait and a summary', (service) => {
    for (const rule of OBSERVABILITY[service].alerts) {
      expect(rule.for).toMatch(/^\d+[smh]$/);
      expect(rule.summary.length).toBeGreaterThan(10);
    }
  });

  test('the check refuses a metric no service exports, and a label its family lacks', async () => {
    const families = await exportedFamilies();
    expect(familyOf('wap_http_requests_total', families)).toBeUndefined();
    const [use] = usesOf('sum by (tenant) (rate(wap_chat_cancels_total{service="chat"}[5m]))');
    expect(
      use?.labels.filter((label) => !familyOf('wap_chat_cancels_total', families)?.has(label)),
    ).toEqual(['tenant']);
  });
});
