import fs from 'node:fs';
import path from 'node:path';
import { emptyShape, learn, type Shape } from '../drift/shape';
import type { LearnedShapes } from '../drift/watch';
import type { Mapping } from '../mapping/model';
import type { RecordedAnswer } from '../testing/answers';
import { isTestFileName, readTestFile } from '../testing/test-file';

/**
 * What a mapping's recorded ERP answers look like, call by call: learned at load from the test files
 * beside the mapping (`<name>.test.yaml`, and any test file of the folder whose `mapping:` names it,
 * which is where `record` and `requests export --as-test` write). Only answers with a JSON body and a
 * 2xx status teach a shape; a call with none is not watched. With them, the fields the mapping's
 * expressions read (mapping/fields-read.ts): a missing field counts as drift only when the mapping reads
 * it (or an object holding it). A test file that does not read is left out (`adapter-engine test` reports it).
 */
export function shapesFromTests(mapping: Mapping): LearnedShapes {
  const mappingPath = path.resolve(mapping.file);
  const dir = path.dirname(mappingPath);
  const shapes = new Map<string, Shape>();
  const fields = mapping.fieldsRead;
  const reads = fields.every ? undefined : (key: string) => fields.names.has(key);
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter(isTestFileName);
  } catch {
    return { shapes, reads };
  }
  for (const name of names) {
    const read = readTestFile(path.join(dir, name));
    if (!read.file || read.mappingPath === undefined || path.resolve(read.mappingPath) !== mappingPath) continue;
    for (const testCase of read.file.cases) {
      for (const [call, given] of Object.entries(testCase.answers ?? {})) {
        for (const answer of (Array.isArray(given) ? given : [given]) as readonly RecordedAnswer[]) {
          const status = answer.status ?? 200;
          if (answer.body === undefined || status < 200 || status >= 300) continue;
          let shape = shapes.get(call);
          if (!shape) shapes.set(call, (shape = emptyShape()));
          learn(shape, answer.body);
        }
      }
    }
  }
  return { shapes, reads };
}

