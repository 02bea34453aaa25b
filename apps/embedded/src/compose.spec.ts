import {
  RUNS_STREAM,
  RUNS_STREAM_CONFIG,
  WEBHOOK_EVENTS_STREAM,
  WEBHOOK_EVENTS_STREAM_CONFIG,
  WEBHOOK_INFLIGHT_BUCKET,
  WEBHOOK_INFLIGHT_BUCKET_OPTIONS,
  WEBHOOK_PAYLOADS_BUCKET,
  WEBHOOK_PAYLOADS_BUCKET_OPTIONS,
} from '@wap/contracts';
import type { KvBucketOptions, ObjectBucketOptions, Platform, StreamConfig } from '@wap/platform';
import { startTestRuntime, testBusKeys, testLogger } from '@wap/testing';
import { DEFAULT_WEBHOOK_INGEST_CONFIG } from '@wap/webhook-ingest-service';
import { startAllServices, webhookOrigin } from './compose';

describe('webhookOrigin', () => {
  const ingestWith = (publicBaseUrl: string) => ({
    ...DEFAULT_WEBHOOK_INGEST_CONFIG,
    publicBaseUrl,
  });

  it('is the origin given to either service, or none', () => {
    expect(webhookOrigin({ workflowRunner: { PUBLIC_BASE_URL: 'https://a.test' } })).toBe(
      'https://a.test',
    );
    expect(webhookOrigin({ webhookIngest: ingestWith('https://b.test') })).toBe('https://b.test');
    expect(webhookOrigin({})).toBeUndefined();
  });

  it('accepts the same origin given to both, and refuses two different ones', () => {
    expect(
      webhookOrigin({
        workflowRunner: { PUBLIC_BASE_URL: 'https://a.test' },
        webhookIngest: ingestWith('https://a.test'),
      }),
    ).toBe('https://a.test');
    expect(() =>
      webhookOrigin({
        workflowRunner: { PUBLIC_BASE_URL: 'https://a.test' },
        webhookIngest: ingestWith('https://b.test'),
      }),
    ).toThrow(/differ/);
  });
});

describe('the services together', () => {
  it('open the webhook-inflight bucket with its shared options (the TTL that bounds it), in both services that use it', async () => {
    const runtime = await startTestRuntime('embedded', { serviceName: 'compose-spec' });
    const opened: (KvBucketOptions | undefined)[] = [];
    const { platform } = runtime;
    // Every call reaches the real bucket; the spec only notes how the in-flight one was opened.
    const recording: Platform = Object.create(platform) as Platform;
    recording.kv = {
      bucket: (name, options) => {
        if (name === WEBHOOK_INFLIGHT_BUCKET) opened.push(options);
        return platform.kv.bucket(name, options);
      },
      view: (name) => platform.kv.view(name),
    };
    const services = await startAllServices(recording, testBusKeys(), () => testLogger());
    try {
      expect(opened).toEqual([WEBHOOK_INFLIGHT_BUCKET_OPTIONS, WEBHOOK_INFLIGHT_BUCKET_OPTIONS]);
    } finally {
      await services.stop();
      await runtime.cleanup();
    }
  });
  it('ensure the automation streams with their shared age limit, in every service that uses them', async () => {
    const runtime = await startTestRuntime('embedded', { serviceName: 'compose-spec' });
    const ensured: StreamConfig[] = [];
    const { platform } = runtime;
    const recording: Platform = Object.create(platform) as Platform;
    recording.streams = Object.create(platform.streams) as Platform['streams'];
    recording.streams.ensureStream = (config) => {
      if ([WEBHOOK_EVENTS_STREAM, RUNS_STREAM].includes(config.name)) ensured.push(config);
      return platform.streams.ensureStream(config);
    };
    const services = await startAllServices(recording, testBusKeys(), () => testLogger());
    try {
      const byName = (name: string) => ensured.filter((config) => config.name === name);
      // webhook-ingest and workflow-runner both ensure WEBHOOK_EVENTS; the runner ensures RUNS.
      expect(byName(WEBHOOK_EVENTS_STREAM)).toEqual([
        WEBHOOK_EVENTS_STREAM_CONFIG,
        WEBHOOK_EVENTS_STREAM_CONFIG,
      ]);
      expect(byName(RUNS_STREAM)).toEqual([RUNS_STREAM_CONFIG]);
      expect(WEBHOOK_EVENTS_STREAM_CONFIG.maxAgeMs).toBeGreaterThan(0);
      expect(RUNS_STREAM_CONFIG.maxAgeMs).toBeGreaterThan(0);
    } finally {
      await services.stop();
      await runtime.cleanup();
    }
  });
  it('ensure the webhook-payloads bucket with its shared age limit, in both services that use it', async () => {
    const runtime = await startTestRuntime('embedded', { serviceName: 'compose-spec' });
    const ensured: (ObjectBucketOptions | undefined)[] = [];
    const { platform } = runtime;
    const recording: Platform = Object.create(platform) as Platform;
    recording.objects = Object.create(platform.objects) as Platform['objects'];
    recording.objects.ensureBucket = (bucket, options) => {
      if (bucket === WEBHOOK_PAYLOADS_BUCKET) ensured.push(options);
      return platform.objects.ensureBucket(bucket, options);
    };
    const services = await startAllServices(recording, testBusKeys(), () => testLogger());
    try {
      // webhook-ingest parks bodies there; workflow-runner reads and deletes them.
      expect(ensured).toEqual([WEBHOOK_PAYLOADS_BUCKET_OPTIONS, WEBHOOK_PAYLOADS_BUCKET_OPTIONS]);
      expect(WEBHOOK_PAYLOADS_BUCKET_OPTIONS.maxAgeMs).toBeGreaterThan(0);
    } finally {
      await services.stop();
      await runtime.cleanup();
    }
  });
});
