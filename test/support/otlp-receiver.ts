import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in OpenTelemetry collector on 127.0.0.1: takes OTLP/HTTP exports (POST /v1/traces) as a
 * collector's receiver does and answers 200. JSON exports are decoded into spans with their resource's
 * attributes; protobuf ones are kept as their bytes.
 */

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };
interface KeyValue { key: string; value: AnyValue }
interface OtlpSpan {
  traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number;
  attributes?: KeyValue[]; links?: { traceId: string; spanId: string }[]; status?: { code?: number };
}
interface ExportRequest { resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[] }

/** A span as a test reads it: attributes as plain values. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  /** OTLP's numbers: 2 server, 3 client, 5 consumer. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
  /** 2 is an error. */
  readonly statusCode: number;
  readonly resource: Readonly<Record<string, string | number | boolean | undefined>>;
}

function plain(attributes: readonly KeyValue[] | undefined): Record<string, string | number | boolean | undefined> {
  return Object.fromEntries((attributes ?? []).map(({ key, value }) => [key, value.stringValue ?? (value.intValue === undefined ? undefined : Number(value.intValue)) ?? value.boolValue ?? value.doubleValue]));
}

export interface OtlpReceiver {
  /** Base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it (the exporter adds /v1/traces). */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** The headers of each export request (OTEL_EXPORTER_OTLP_HEADERS arrive here). */
  readonly headers: http.IncomingHttpHeaders[];
  /** The bodies of the protobuf exports (http/protobuf), undecoded. */
  readonly protobuf: Buffer[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const headers: http.IncomingHttpHeaders[] = [];
  const protobuf: Buffer[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const type = String(req.headers['content-type']);
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !/^application\/(json|x-protobuf)/.test(type)) {
        res.writeHead(415).end();
        return;
      }
      headers.push(req.headers);
      if (type.startsWith('application/x-protobuf')) {
        protobuf.push(Buffer.concat(chunks));
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest;
      for (const resourceSpans of body.resourceSpans ?? []) {
        const resource = plain(resourceSpans.resource?.attributes);
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId || undefined, name: span.name, kind: span.kind,
              attributes: plain(span.attributes), links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId })),
              statusCode: span.status?.code ?? 0, resource,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    headers,
    protobuf,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
