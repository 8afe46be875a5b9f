import { itemsOf, objectFields, routeSchema, type ObjectFields, type SchemaAt } from '../contract/schema-fields';
import type { RouteSpec } from '../contract/routes';
import type { RootPath } from './call-references';
import { closest } from './check-structure';

/**
 * `input.<field>` read where the route's input has no such field gives nothing at run time: a request
 * to the ERP without the order number, an answer with data missing, never an error. The contract names
 * every route's input fields (the query or path parameters, the body's properties), so a misspelt one
 * (`input.Cod`) is refused at load, at the name's own place, with the field meant.
 */
export interface InputFieldProblem {
  /** Offset of the misspelt name in the expression text. */
  readonly offset: number;
  readonly message: string;
}

/** The fields a value of this schema has; a list of objects counts as its items' (JSONata reads a field of each). */
function fieldsOf(at: SchemaAt): ObjectFields | undefined {
  const items = itemsOf(at);
  return objectFields(at) ?? (items && objectFields(items));
}

export function inputFieldProblems(route: RouteSpec, paths: readonly RootPath[]): InputFieldProblem[] {
  const problems: InputFieldProblem[] = [];
  for (const names of paths) {
    if (names[0].name !== 'input' || names.length < 2) continue;
    if (!route.inputSchema) {
      problems.push({ offset: names[1].offset, message: `input.${names[1].name}: ${route.operationId} (${route.method} ${route.path}) takes no input, so it gives nothing` });
      continue;
    }
    let at: SchemaAt = routeSchema(route.inputSchema);
    for (let index = 1; index < names.length; index += 1) {
      const fields = fieldsOf(at);
      if (!fields) break;
      const { name, offset } = names[index];
      const field = fields.properties.get(name);
      if (field) {
        at = field;
        continue;
      }
      const known = [...fields.properties.keys()];
      const written = names.slice(0, index + 1).map((step) => step.name).join('.');
      const hint = closest(name, known);
      const where = index === 1 ? `the input of ${route.operationId} (${route.method} ${route.path})` : `input.${names.slice(1, index).map((step) => step.name).join('.')}`;
      // A long list of fields helps nobody who has a near miss; without one, it says what there is.
      const list = !hint || known.length <= 8 ? ` (its fields: ${known.join(', ')})` : '';
      problems.push({ offset, message: `${written}: ${where} has no field "${name}"${hint ? `; did you mean ${[...names.slice(0, index).map((step) => step.name), hint].join('.')}?` : ''}${list}` });
      break;
    }
  }
  return problems;
}
