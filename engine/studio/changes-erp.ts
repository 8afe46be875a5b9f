import { canChangeErp, type Mapping } from '../mapping/model';

/** The calls of an operation that can change the ERP (mapping/model.ts's canChangeErp), as the page lists them: `name (METHOD path)`. */
export function changingCalls(mapping: Mapping, operationId: string): string[] {
  const operation = mapping.operations.get(operationId);
  if (operation?.mode !== 'flow') return [];
  return operation.calls.filter(canChangeErp).map((call) => `${call.name} (${call.method} ${call.path.source})`);
}
