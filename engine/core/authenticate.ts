import { checkInbound } from '../access/inbound-auth';
import type { Mapping } from '../mapping/model';
import type { EngineAnswer, EngineParts, Served } from './stage';

/** The authenticate stage: the mapping's inbound.auth, or the 401 that refuses the request. */
export function authenticate(parts: EngineParts, served: Served, mapping: Mapping): EngineAnswer | undefined {
  const { request, requestId, started } = served;
  const verdict = checkInbound(mapping.inbound.auth, request.headers ?? {}, `adapter-engine/${mapping.name}`);
  if (verdict.ok) return undefined;
  // Logged and counted without the credential: only which header was missing or wrong.
  parts.meter.refused({ mapping: mapping.name, reason: verdict.reason });
  parts.log.warn({ requestId, mapping: mapping.name, method: request.method, path: request.path, reason: verdict.reason }, `request refused: ${verdict.message}`);
  return { requestId, status: 401, body: { error: `authentication required: ${verdict.message}` }, headers: { 'x-request-id': requestId, 'www-authenticate': verdict.challenge }, mapping, durationMs: parts.clock.now() - started };
}
