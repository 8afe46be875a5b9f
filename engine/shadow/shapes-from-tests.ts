import { emptyShape, learn, type Shape } from '../drift/shape';
import type { LearnedShapes } from '../drift/watch';
import type { Mapping } from '../mapping/model';
import { recordedBodies } from '../testing/recorded-bodies';

/**
 * What a mapping's recorded ERP answers look like, call by call: learned at load from the test files
 * beside the mapping (`<name>.test.yaml`, and any test file of the folder whose `mapping:` names it,
 * which is where `record` and `requests export --as-test` write). Only answers with a JSON body and a
 * 2xx status teach a shape; a call with none is not watched. With them, the fields the mapping's
 * expressions read (mapping/fields-read.ts): a missing field counts as drift only when the mapping reads
 * it (or an object holding it). A test file that does not read is left out (`adapter-engine test` reports it).
 */
export function shapesFromTests(mapping: Mapping): LearnedShapes {
  const shapes = new Map<string, Shape>();
  const fields = mapping.fieldsRead;
  const reads = fields.every ? undefined : (key: string) => fields.names.has(key);
  for (const { call, body } of recordedBodies(mapping.file)) {
    let shape = shapes.get(call);
    if (!shape) shapes.set(call, (shape = emptyShape()));
    learn(shape, body);
  }
  return { shapes, reads };
}
