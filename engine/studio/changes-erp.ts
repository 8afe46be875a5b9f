import type { CallSpec, Mapping } from '../mapping/model';

/**
 * Whether a call can change the ERP: any method but GET and HEAD. The one place the studio decides it,
 * so that a call's own declaration (a read over POST marked safe) can take over here.
 */
function canChangeErp(call: CallSpec): boolean {
  return call.method !== 'GET';
}

/** The calls of an operation that can change the ERP, as the page lists them: `name (METHOD path)`. */
export function changingCalls(mapping: Mapping, operationId: string): string[] {
  const operation = mapping.operations.get(operationId);
  if (operation?.mode !== 'flow') return [];
  return operation.calls.filter(canChangeErp).map((call) => `${call.name} (${call.method} ${call.path.source})`);
}
