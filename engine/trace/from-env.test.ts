import { describe, expect, it } from 'vitest';
import { silentLogger } from '../log';
import { tracingFromEnv } from './from-env';

/** The one decision whether spans are exported: the standard variables, and nothing loaded otherwise. */
describe('span export from the OTEL_* variables', () => {
  const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' };

  it.each([
    ['no variable', {}],
    ['OTEL_SDK_DISABLED=true, whatever else is set', { ...ENDPOINT, OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' }],
    ['OTEL_TRACES_EXPORTER=none with an endpoint', { ...ENDPOINT, OTEL_TRACES_EXPORTER: 'none' }],
    ['only exporters the engine does not have', { ...ENDPOINT, OTEL_TRACES_EXPORTER: 'zipkin' }],
    ['an empty endpoint', { OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }],
  ])('exports nothing with %s', async (_what, env) => {
    expect(await tracingFromEnv(env, silentLogger)).toBeUndefined();
  });

  it.each([
    ['an endpoint and no exporter named', ENDPOINT],
    ['a traces endpoint', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:9/v1/traces' }],
    ['OTEL_TRACES_EXPORTER=otlp alone (the default endpoint)', { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }],
  ])('exports with %s', async (_what, env) => {
    const tracing = await tracingFromEnv(env, silentLogger);
    expect(tracing).toBeDefined();
    await tracing?.shutdown();
  });
});
