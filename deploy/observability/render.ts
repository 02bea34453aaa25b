import { stringify } from 'yaml';
import { OBSERVABILITY, type ServiceName } from './catalog';

const forService = (text: string, service: ServiceName) => text.replaceAll('$service', service);

/** The service's Grafana dashboard (one time-series panel per row of two). */
export function dashboardOf(service: ServiceName): string {
  const { panels } = OBSERVABILITY[service];
  return `${JSON.stringify(
    {
      title: `wap / ${service}`,
      uid: `wap-${service}`,
      tags: ['wap', service],
      schemaVersion: 39,
      time: { from: 'now-6h', to: 'now' },
      templating: {
        list: [{ name: 'datasource', type: 'datasource', query: 'prometheus' }],
      },
      panels: panels.map((panel, index) => ({
        id: index + 1,
        type: 'timeseries',
        title: panel.title,
        datasource: { type: 'prometheus', uid: '${datasource}' },
        gridPos: { x: (index % 2) * 12, y: Math.floor(index / 2) * 8, w: 12, h: 8 },
        fieldConfig: { defaults: { unit: panel.unit }, overrides: [] },
        targets: [
          { refId: 'A', expr: forService(panel.expr, service), legendFormat: panel.legend },
        ],
      })),
    },
    null,
    2,
  )}\n`;
}

/** The service's Prometheus alerting rules, one group. */
export function alertRulesOf(service: ServiceName): string {
  return stringify({
    groups: [
      {
        name: `wap-${service}`,
        rules: OBSERVABILITY[service].alerts.map((rule) => ({
          alert: rule.alert,
          expr: forService(rule.expr, service),
          for: rule.for,
          labels: { severity: rule.severity, service },
          annotations: { summary: forService(rule.summary, service) },
        })),
      },
    ],
  });
}
