/**
 * Each service's Grafana dashboard and Prometheus alert rules, as data: `npm run
 * deploy:observability` writes them under deploy/observability/<service>/, and
 * deploy/checks/observability.spec.ts checks every metric and label they use against what the
 * services export (libs/observability's catalog, rendered as a scrape renders it).
 */

import { SERVICE_NAMES } from '@wap/contracts';

/** The gateway, then the services that own routes. */
export const SERVICES = ['gateway', ...SERVICE_NAMES] as const;
export type ServiceName = (typeof SERVICES)[number];

export interface Panel {
  title: string;
  /** PromQL; `$service` is the service's name (every series has a `service` label). */
  expr: string;
  unit: 'reqps' | 's' | 'short' | 'percentunit';
  legend: string;
}

export interface AlertRule {
  alert: string;
  expr: string;
  for: string;
  severity: 'page' | 'ticket';
  summary: string;
}

const rate = (metric: string, selector: string, by: string) =>
  `sum by (${by}) (rate(${metric}{service="$service"${selector ? `,${selector}` : ''}}[5m]))`;
const p99 = (histogram: string, selector: string) =>
  `histogram_quantile(0.99, sum by (le) (rate(${histogram}_bucket{service="$service"${selector ? `,${selector}` : ''}}[5m])))`;

/** What every service shows: the bus requests it serves, what the trust layer refused, its loop. */
const busPanels: Panel[] = [
  {
    title: 'Bus requests served, by outcome',
    expr: rate('wap_bus_request_duration_seconds_count', 'side="server"', 'outcome'),
    unit: 'reqps',
    legend: '{{outcome}}',
  },
  {
    title: 'Bus request latency served, p99',
    expr: p99('wap_bus_request_duration_seconds', 'side="server"'),
    unit: 's',
    legend: 'p99',
  },
  {
    title: 'Bus requests refused by the trust layer, by reason',
    expr: rate('wap_bus_refused_total', '', 'reason'),
    unit: 'reqps',
    legend: '{{reason}}',
  },
  {
    title: 'Event loop lag, p99',
    expr: 'max(nodejs_eventloop_lag_p99_seconds{service="$service"})',
    unit: 's',
    legend: 'p99',
  },
];

const busAlerts: AlertRule[] = [
  {
    alert: 'BusErrorRateHigh',
    expr:
      'sum(rate(wap_bus_request_duration_seconds_count{service="$service",side="server",outcome="error"}[5m]))' +
      ' / sum(rate(wap_bus_request_duration_seconds_count{service="$service",side="server"}[5m])) > 0.05',
    for: '10m',
    severity: 'page',
    summary: 'More than 5 % of the bus requests $service serves fail.',
  },
  {
    alert: 'BusLatencyHigh',
    expr: `${p99('wap_bus_request_duration_seconds', 'side="server"')} > 2`,
    for: '15m',
    severity: 'ticket',
    summary: '$service answers 1 bus request in 100 slower than 2 s.',
  },
  {
    alert: 'BusRequestsRefused',
    expr: 'sum(increase(wap_bus_refused_total{service="$service"}[10m])) > 0',
    for: '0m',
    severity: 'page',
    summary:
      '$service refused bus requests that were not signed, fresh or allowed: a misconfigured or hostile peer.',
  },
];

/** The runner's durable consumers (RUNS, WEBHOOK_EVENTS): what they handle, their lag, dead letters. */
const streamPanels: Panel[] = [
  {
    title: 'Stream messages handled, by consumer and outcome',
    expr: rate('wap_stream_messages_total', '', 'consumer, outcome'),
    unit: 'reqps',
    legend: '{{consumer}} {{outcome}}',
  },
  {
    title: 'Consumer lag (messages not yet delivered)',
    expr: 'max by (stream, consumer) (wap_stream_consumer_pending_messages{service="$service"})',
    unit: 'short',
    legend: '{{stream}}/{{consumer}}',
  },
  {
    title: 'Dead letters, by reason',
    expr: rate('wap_dead_letters_total', '', 'consumer, reason'),
    unit: 'reqps',
    legend: '{{consumer}} {{reason}}',
  },
];

const streamAlerts: AlertRule[] = [
  {
    alert: 'ConsumerLagGrowing',
    expr: 'max by (stream, consumer) (wap_stream_consumer_pending_messages{service="$service"}) > 1000',
    for: '10m',
    severity: 'page',
    summary: 'A consumer of $service is more than 1,000 messages behind for 10 minutes.',
  },
  {
    alert: 'DeadLetters',
    expr: 'sum by (consumer) (increase(wap_dead_letters_total{service="$service"}[15m])) > 0',
    for: '0m',
    severity: 'ticket',
    summary:
      '$service moved messages to the dead-letter stream: read them with `npm run admin -- dead-letters list`.',
  },
];

export const OBSERVABILITY: Record<ServiceName, { panels: Panel[]; alerts: AlertRule[] }> = {
  gateway: {
    panels: [
      {
        title: 'HTTP requests, by status',
        expr: rate('wap_http_request_duration_seconds_count', '', 'status'),
        unit: 'reqps',
        legend: '{{status}}',
      },
      {
        title: 'HTTP latency, p99',
        expr: p99('wap_http_request_duration_seconds', ''),
        unit: 's',
        legend: 'p99',
      },
      {
        title: 'Bus requests made, by outcome',
        expr: rate('wap_bus_request_duration_seconds_count', 'side="client"', 'outcome'),
        unit: 'reqps',
        legend: '{{outcome}}',
      },
      busPanels[3] as Panel,
    ],
    alerts: [
      {
        alert: 'HttpServerErrorsHigh',
        expr:
          'sum(rate(wap_http_request_duration_seconds_count{service="$service",status=~"5.."}[5m]))' +
          ' / sum(rate(wap_http_request_duration_seconds_count{service="$service"}[5m])) > 0.02',
        for: '10m',
        severity: 'page',
        summary: 'More than 2 % of the platform’s HTTP answers are 5xx.',
      },
      {
        alert: 'HttpLatencyHigh',
        expr: `${p99('wap_http_request_duration_seconds', '')} > 2`,
        for: '15m',
        severity: 'ticket',
        summary: '1 HTTP request in 100 takes more than 2 s.',
      },
      {
        alert: 'ServicesNotAnswering',
        expr: 'sum(rate(wap_bus_request_duration_seconds_count{service="$service",side="client",outcome=~"timeout|no_responders"}[5m])) > 0.1',
        for: '5m',
        severity: 'page',
        summary: 'The gateway’s requests to services time out or find no responder (503 to users).',
      },
    ],
  },
  storage: { panels: busPanels, alerts: busAlerts },
  chat: {
    panels: [
      ...busPanels,
      {
        title: 'Assistant turns ended, by status',
        expr: rate('wap_chat_turn_duration_seconds_count', '', 'status'),
        unit: 'reqps',
        legend: '{{status}}',
      },
      {
        title: 'Assistant turn duration, p99',
        expr: p99('wap_chat_turn_duration_seconds', ''),
        unit: 's',
        legend: 'p99',
      },
      {
        title: 'Stops asked for, by kind and outcome',
        expr: rate('wap_chat_cancels_total', '', 'kind, outcome'),
        unit: 'reqps',
        legend: '{{kind}} {{outcome}}',
      },
    ],
    alerts: [
      ...busAlerts,
      {
        alert: 'TurnFailures',
        expr:
          'sum(rate(wap_chat_turn_duration_seconds_count{service="$service",status="failed"}[10m]))' +
          ' / sum(rate(wap_chat_turn_duration_seconds_count{service="$service"}[10m])) > 0.1',
        for: '10m',
        severity: 'page',
        summary: 'More than 10 % of assistant turns fail (the model provider, tools or a replica).',
      },
    ],
  },
  'mcp-registry': {
    panels: [
      ...busPanels,
      {
        title: 'Tool syncs, by outcome',
        expr: rate('wap_mcp_syncs_total', '', 'outcome'),
        unit: 'reqps',
        legend: '{{outcome}}',
      },
      {
        title: 'Tool calls, by outcome',
        expr: rate('wap_mcp_tool_call_duration_seconds_count', '', 'outcome'),
        unit: 'reqps',
        legend: '{{outcome}}',
      },
      {
        title: 'Tool call duration, p99',
        expr: p99('wap_mcp_tool_call_duration_seconds', ''),
        unit: 's',
        legend: 'p99',
      },
    ],
    alerts: busAlerts,
  },
  'workflow-runner': {
    panels: [
      ...busPanels,
      ...streamPanels,
      {
        title: 'Runs started, by trigger',
        expr: rate('wap_workflow_runs_started_total', '', 'trigger'),
        unit: 'reqps',
        legend: '{{trigger}}',
      },
      {
        title: 'Runs ended, by status',
        expr: rate('wap_workflow_run_duration_seconds_count', '', 'status'),
        unit: 'reqps',
        legend: '{{status}}',
      },
    ],
    alerts: [
      ...busAlerts,
      ...streamAlerts,
      {
        alert: 'RunFailures',
        expr:
          'sum(rate(wap_workflow_run_duration_seconds_count{service="$service",status="failed"}[15m]))' +
          ' / sum(rate(wap_workflow_run_duration_seconds_count{service="$service"}[15m])) > 0.2',
        for: '15m',
        severity: 'ticket',
        summary: 'More than 20 % of workflow runs fail.',
      },
    ],
  },
  'webhook-ingest': {
    panels: [
      ...busPanels,
      {
        title: 'Webhook requests, by entry and outcome',
        expr: rate('wap_webhook_requests_total', '', 'entry, outcome'),
        unit: 'reqps',
        legend: '{{entry}} {{outcome}}',
      },
    ],
    alerts: [
      ...busAlerts,
      {
        alert: 'WebhooksRefused',
        expr:
          'sum(rate(wap_webhook_requests_total{service="$service",outcome="refused"}[10m]))' +
          ' / sum(rate(wap_webhook_requests_total{service="$service"}[10m])) > 0.5',
        for: '10m',
        severity: 'ticket',
        summary:
          'More than half of the webhook requests are refused (signatures, limits, credits).',
      },
    ],
  },
};
