import type { Logger } from '../log';
import type { Tracing } from './spans';

/**
 * The one place that decides whether spans are exported, from the standard OpenTelemetry variables:
 * OTEL_TRACES_EXPORTER=otlp, or an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or _TRACES_ENDPOINT) with no
 * exporter named; never with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none. Only then is the SDK
 * loaded (trace/otel.ts): without export, no OpenTelemetry module is read and a request costs two ids.
 */
function exportAsked(env: NodeJS.ProcessEnv): { readonly asked: boolean; readonly unsupported: readonly string[] } {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return { asked: false, unsupported: [] };
  const named = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((name) => name.trim().toLowerCase()).filter((name) => name !== '');
  if (named.includes('none')) return { asked: false, unsupported: [] };
  const endpoint = (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').trim() !== '';
  const unsupported = named.filter((name) => name !== 'otlp');
  return { asked: named.includes('otlp') || (named.length === 0 && endpoint), unsupported };
}

/** The exporter the variables ask for, loaded; undefined when they ask for none. */
export async function tracingFromEnv(env: NodeJS.ProcessEnv, log: Logger): Promise<Tracing | undefined> {
  const { asked, unsupported } = exportAsked(env);
  if (unsupported.length > 0) log.warn({ exporters: unsupported }, 'OTEL_TRACES_EXPORTER names exporters this engine does not have; it exports over otlp only');
  if (!asked) return undefined;
  // http/protobuf is the specification's default; grpc would need another transport and is not offered.
  const askedProtocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf').trim();
  const protocol = askedProtocol === 'http/json' ? 'http/json' : 'http/protobuf';
  if (askedProtocol !== protocol) log.warn({ protocol: askedProtocol }, 'the engine exports spans over OTLP/HTTP only; sending http/protobuf (a collector takes it on port 4318)');
  const { createOtelTracing } = await import('./otel');
  const tracing = createOtelTracing(env, log, protocol);
  log.info({ endpoint: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318/v1/traces', protocol }, 'exporting spans over OTLP');
  return tracing;
}
