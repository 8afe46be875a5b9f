import type { RouteSpec } from '../contract/routes';
import type { Mapping } from './model';

/**
 * How a mapping answers each contract route and what its push endpoints are, as rows: what
 * `adapter-engine routes` prints and the studio's Mappings page shows.
 */
type RouteStatus = 'mapped' | 'static' | 'acknowledged' | 'unmapped';

export interface RouteRow {
  operation: string;
  method: string;
  path: string;
  kind: RouteSpec['kind'];
  status: RouteStatus;
  calls: string[];
  /** File types a file route parses itself. */
  fileTypes?: string[];
  /** What an unmapped route answers. */
  answers?: string;
}

export function rowOf(mapping: Mapping, route: RouteSpec): RouteRow {
  const base = { operation: route.operationId, method: route.method, path: route.path, kind: route.kind, calls: [] as string[] };
  const operation = mapping.operations.get(route.operationId);
  if (!operation) return { ...base, status: 'unmapped', answers: route.unmappedDefault ? `${route.successResult} with empty data (contract default)` : 'AdapterNotDefined' };
  if (operation.mode === 'static') return { ...base, status: 'static' };
  if (operation.mode === 'acknowledge') return { ...base, status: 'acknowledged' };
  if (operation.mode === 'file') return { ...base, status: 'mapped', fileTypes: (['csv', 'json'] as const).filter((type) => operation[type] !== undefined) };
  return { ...base, status: 'mapped', calls: operation.calls.map((call) => call.name) };
}

export interface PushRow {
  push: string;
  method: 'POST';
  path: string;
  auth: string;
  records: string;
  calls: string[];
}

/** The push endpoints (the ERP's door): where they are, how the ERP authenticates, what the platform gets. */
export function pushRows(mapping: Mapping): PushRow[] {
  return [...mapping.pushes.values()].map((push) => ({
    push: push.name, method: 'POST', path: `/push/${push.name}`, auth: push.auth.type,
    records: push.records ? (push.batch ? `records in batches of ${push.batch}` : 'one call per record') : 'one record',
    calls: push.calls.map((call) => `${call.method} ${call.path.source}`),
  }));
}

