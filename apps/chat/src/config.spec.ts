import { chatSettings, loadConfig } from './config';

describe('the chat settings', () => {
  test('defaults: no model, bounded steps and leases', () => {
    const settings = chatSettings();
    expect(settings.LLM_BASE_URL).toBeUndefined();
    expect(settings.LLM_MODEL).toBeUndefined();
    expect(settings).toMatchObject({
      CHAT_MAX_STEPS: 8,
      TURN_LEASE_MS: 15_000,
      TURN_HEARTBEAT_MS: 3_000,
    });
  });

  test('a provider URL needs a model', () => {
    expect(() => chatSettings({ LLM_BASE_URL: 'http://127.0.0.1:11434/v1' })).toThrow(
      /LLM_MODEL is required when LLM_BASE_URL is set/,
    );
    expect(
      chatSettings({ LLM_BASE_URL: 'http://127.0.0.1:11434/v1', LLM_MODEL: 'llama3' }).LLM_MODEL,
    ).toBe('llama3');
  });

  test('the lease must outlast two heartbeats, in the process environment too', () => {
    expect(() => chatSettings({ TURN_LEASE_MS: 5000, TURN_HEARTBEAT_MS: 3000 })).toThrow(
      /TURN_LEASE_MS must be at least twice TURN_HEARTBEAT_MS/,
    );
    // Every service process needs its bus keys (decision 112); their values do not matter here.
    const busKeys = { BUS_SIGNING_KEY: '{}', BUS_TRUSTED_KEYS: '{}' };
    expect(() =>
      loadConfig({ ...busKeys, TURN_LEASE_MS: '5000', TURN_HEARTBEAT_MS: '3000' }),
    ).toThrow(/TURN_LEASE_MS/);
    expect(loadConfig({ ...busKeys, LLM_MODEL: 'm', CHAT_MAX_STEPS: '3' }).CHAT_MAX_STEPS).toBe(3);
  });
});
