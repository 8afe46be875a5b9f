import { emptyShape, learn, type Shape } from '../drift/shape';
import type { MappingIssue } from '../errors';
import { closest } from '../mapping/check-structure';
import type { AnswerRead } from '../mapping/compile-mapping';
import type { RecordedBody } from './recorded-bodies';

/**
 * A misspelt field of the ERP's answer (`calls.order.body.custmer`) gives nothing at run time, and the
 * answer is valid but emptier. Where the mapping's tests recorded answers of that call, `validate` knows
 * what the answer looks like (as drift watching learns it, drift/shape.ts) and warns at the field, with
 * the recorded field of the closest spelling. Only such near misses are warned about: a field that no
 * recording has may still be one the ERP sends only sometimes.
 */

/** The object a field is read from: through lists (JSONata reads a field of each element); undefined when the recordings held anything else there. */
function objectsAt(shape: Shape): Shape | undefined {
  let current: Shape | undefined = shape;
  for (let depth = 0; current && depth < 10; depth += 1) {
    const kinds: string[] = [...current.kinds].filter((kind) => kind !== 'null');
    if (kinds.length === 1 && kinds[0] === 'object' && current.objects > 0) return current;
    current = kinds.length === 1 && kinds[0] === 'array' ? current.items : undefined;
  }
  return undefined;
}

export function answerFieldWarnings(reads: readonly AnswerRead[], bodies: readonly RecordedBody[]): MappingIssue[] {
  const shapes = new Map<string, { shape: Shape; files: Set<string> }>();
  for (const { operationId, call, body, testFile } of bodies) {
    if (operationId === undefined) continue;
    const key = `${operationId} ${call}`;
    let learned = shapes.get(key);
    if (!learned) shapes.set(key, (learned = { shape: emptyShape(), files: new Set() }));
    learn(learned.shape, body);
    learned.files.add(testFile);
  }
  const warnings: MappingIssue[] = [];
  const said = new Set<string>();
  for (const read of reads) {
    const learned = shapes.get(`${read.operationId} ${read.call}`);
    let shape: Shape | undefined = learned?.shape;
    for (const [index, field] of read.fields.entries()) {
      const objects = shape && objectsAt(shape);
      if (!objects || !learned) break;
      const known = objects.fields.get(field.name);
      if (known) {
        shape = known.shape;
        continue;
      }
      const hint = closest(field.name, [...objects.fields.keys()]);
      const written = ['calls', read.call, 'body', ...read.fields.slice(0, index + 1).map((step) => step.name)].join('.');
      const where = `${field.file}:${field.line}:${field.col}`;
      if (hint && !said.has(where)) {
        said.add(where);
        const meant = ['calls', read.call, 'body', ...read.fields.slice(0, index).map((step) => step.name), hint].join('.');
        warnings.push({
          file: field.file, line: field.line, col: field.col, path: `operations.${read.operationId}`, severity: 'warning', code: 'ANSWER_FIELD_UNKNOWN',
          message: `${written}: no answer of the call "${read.call}" recorded in ${[...learned.files].join(', ')} has a field "${field.name}" here, so it gives nothing; did you mean ${meant}?`,
        });
      }
      break;
    }
  }
  return warnings;
}
