import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../log';
import { createOtelTracing } from './otel';
import type { Tracing } from './spans';

/** The sampler the OTEL_TRACES_SAMPLER variables name decides the sampled flag the ERP calls then carry. */
describe('sampling from OTEL_TRACES_SAMPLER', () => {
  const own = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', sampled: false };
  const sampledParent = { traceId: own.traceId, spanId: 'b7ad6b7169203331', sampled: true };
  const open: Tracing[] = [];
  const tracingWith = (env: NodeJS.ProcessEnv) => {
    const tracing = createOtelTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', ...env }, silentLogger, 'http/json');
    open.push(tracing);
    return tracing;
  };
  afterEach(async () => {
    for (const tracing of open.splice(0)) await tracing.shutdown();
  });

  it('records new traces by default, and follows the caller\'s flag', () => {
    const tracing = tracingWith({});
    expect(tracing.start({ name: 'GET', kind: 'server', context: own }).sampled).toBe(true);
    expect(tracing.start({ name: 'GET', kind: 'server', context: own, parent: { ...sampledParent, sampled: false } }).sampled).toBe(false);
  });

  it('parentbased_traceidratio with 0 records no new trace, but a trace the caller records', () => {
    const tracing = tracingWith({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' });
    expect(tracing.start({ name: 'GET', kind: 'server', context: own }).sampled).toBe(false);
    expect(tracing.start({ name: 'GET', kind: 'server', context: own, parent: sampledParent }).sampled).toBe(true);
  });

  it('always_off records nothing, an unknown name falls back to the default', () => {
    expect(tracingWith({ OTEL_TRACES_SAMPLER: 'always_off' }).start({ name: 'GET', kind: 'server', context: own, parent: sampledParent }).sampled).toBe(false);
    expect(tracingWith({ OTEL_TRACES_SAMPLER: 'sometimes' }).start({ name: 'GET', kind: 'server', context: own }).sampled).toBe(true);
  });
});
