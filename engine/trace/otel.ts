import { createTraceState, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Link } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, RandomIdGenerator, TraceIdRatioBasedSampler, TracerProvider, type IdGenerator, type Sampler } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Logger } from '../log';
import { engineVersion } from '../paths';
import type { TraceContext } from './context';
import type { SpanAttributes, SpanKind as Kind, SpanStart, Tracing } from './spans';

/**
 * Spans exported over OTLP/HTTP (protobuf or JSON) with the official SDK. Loaded only when the OTEL_* variables ask
 * for export (from-env.ts); the exporter reads OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, _HEADERS, _TIMEOUT
 * and _COMPRESSION itself, the resource detector OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES; the
 * sampler and the batch's delay are read here, as this SDK version leaves them to its callers.
 */

const KINDS: Readonly<Record<Kind, SpanKind>> = { server: SpanKind.SERVER, client: SpanKind.CLIENT, consumer: SpanKind.CONSUMER };

/** OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG, as the specification names them; parentbased_always_on by default. */
function samplerFrom(env: NodeJS.ProcessEnv, log: Logger): Sampler {
  const name = (env.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on').trim().toLowerCase();
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? '1');
  const byRatio = () => new TraceIdRatioBasedSampler(Number.isFinite(ratio) && ratio >= 0 && ratio <= 1 ? ratio : 1);
  switch (name) {
    case 'always_on': return new AlwaysOnSampler();
    case 'always_off': return new AlwaysOffSampler();
    case 'traceidratio': return byRatio();
    case 'parentbased_always_off': return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio': return new ParentBasedSampler({ root: byRatio() });
    case 'parentbased_always_on': return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    default:
      log.warn({ sampler: name }, 'OTEL_TRACES_SAMPLER names no sampler this engine knows; using parentbased_always_on');
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

function millis(text: string | undefined, fallback: number): number {
  const value = Number(text);
  return text !== undefined && Number.isFinite(value) && value >= 0 ? value : fallback;
}

function contextOf(span: TraceContext, isRemote: boolean): Context {
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: span.traceId, spanId: span.spanId, traceFlags: span.sampled ? 1 : 0, isRemote, ...(span.state ? { traceState: createTraceState(span.state) } : {}) });
}

function cleaned(attributes: SpanAttributes | undefined): Attributes {
  const kept: Attributes = {};
  for (const [name, value] of Object.entries(attributes ?? {})) if (value !== undefined) kept[name] = value;
  return kept;
}

export function createOtelTracing(env: NodeJS.ProcessEnv, log: Logger, protocol: 'http/protobuf' | 'http/json'): Tracing {
  // The engine chose the ids and sent them to the ERP before the span exists: the SDK's id generator
  // hands over the chosen ones (startSpan asks it synchronously, once for the span, once for a root's trace).
  let chosen: { traceId: string; spanId: string } | undefined;
  const random = new RandomIdGenerator();
  const idGenerator: IdGenerator = {
    generateTraceId: () => chosen?.traceId ?? random.generateTraceId(),
    generateSpanId: () => chosen?.spanId ?? random.generateSpanId(),
  };
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'adapter-engine', [ATTR_SERVICE_VERSION]: engineVersion() }))
    .merge(detectResources({ detectors: [envDetector] }));
  const processor = new BatchSpanProcessor({
    exporter: protocol === 'http/json' ? new JsonExporter() : new ProtobufExporter(),
    scheduledDelayMillis: millis(env.OTEL_BSP_SCHEDULE_DELAY, 5000),
    exportTimeoutMillis: millis(env.OTEL_BSP_EXPORT_TIMEOUT, 30_000),
  });
  const provider = new TracerProvider({ resource, sampler: samplerFrom(env, log), idGenerator, spanProcessors: [processor] });
  const tracer = provider.getTracer('adapter-engine', engineVersion());
  return {
    start(start: SpanStart) {
      // A server's parent is the caller's, a delivery's the stored request's: both from elsewhere.
      const parent = start.parent ? contextOf(start.parent, start.kind !== 'client') : ROOT_CONTEXT;
      const links: Link[] = (start.links ?? []).map((linked) => ({ context: trace.getSpanContext(contextOf(linked, true))! }));
      chosen = { traceId: start.context.traceId, spanId: start.context.spanId };
      let span;
      try {
        span = tracer.startSpan(start.name, { kind: KINDS[start.kind], attributes: cleaned(start.attributes), links }, parent);
      } finally {
        chosen = undefined;
      }
      const recorded = span;
      return {
        sampled: (recorded.spanContext().traceFlags & 1) === 1,
        end(attributes, errorType, name) {
          recorded.setAttributes(cleaned(attributes));
          if (name !== undefined) recorded.updateName(name);
          if (errorType !== undefined) {
            recorded.setAttribute('error.type', errorType);
            recorded.setStatus({ code: SpanStatusCode.ERROR });
          }
          recorded.end();
        },
      };
    },
    async shutdown() {
      await provider.shutdown();
    },
  };
}
