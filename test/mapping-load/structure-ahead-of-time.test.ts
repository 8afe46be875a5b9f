/**
 * The build compiles the mapping structure check into code (engine/scripts/write-structure-validator.ts)
 * and serve loads that instead of compiling it at every start; the tests run from the sources, which
 * compile it on first use. This test holds the two to the same verdicts and the same errors, on the
 * example mapping and on broken copies of it (the test command builds first: `pretest`).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ErrorObject } from 'ajv';
import { mappingJsonSchema } from '../../engine/mapping/format';
import { AHEAD_OF_TIME_FILE, structureAjv } from '../../engine/mapping/structure-ajv';
import { MAPPINGS_DIR, PROJECT_ROOT } from '../../engine/paths';

type Check = ((value: unknown) => boolean) & { errors?: ErrorObject[] | null };

const BUILT = path.join(PROJECT_ROOT, 'dist', 'engine', 'mapping', AHEAD_OF_TIME_FILE);

type Mutable = Record<string, unknown>;
const example = parse(fs.readFileSync(path.join(MAPPINGS_DIR, 'example.yaml'), 'utf8')) as Mutable;
const at = (value: Mutable, ...keys: (string | number)[]): Mutable => keys.reduce<Mutable>((node, key) => node[key] as Mutable, value);

/** The example, and copies with one mistake each of the kinds integrators make. */
function corpus(): [string, unknown][] {
  const broken = (what: string, change: (copy: Mutable) => void): [string, unknown] => {
    const copy = structuredClone(example);
    change(copy);
    return [what, copy];
  };
  return [
    ['the example', example],
    ['an empty document', {}],
    ['not an object', 'operations'],
    broken('an unknown top-level key', (copy) => { copy.operationz = {}; }),
    broken('a method that does not exist', (copy) => { (at(copy, 'operations', 'GetWorkOrders', 'calls', 0)).method = 'FETCH'; }),
    broken('text where a number goes', (copy) => { at(copy, 'system').timeoutMs = 'soon'; }),
    broken('an auth type that does not exist', (copy) => { at(copy, 'system').auth = { type: 'oauth3' }; }),
    broken('a push auth kind that does not exist', (copy) => { (Object.values(at(copy, 'push'))[0] as Mutable).auth = { type: 'bearer' }; }),
    broken('calls that are not a list', (copy) => { at(copy, 'operations', 'GetWorkOrders').calls = 'none'; }),
    broken('an operation that is not an object', (copy) => { at(copy, 'operations').GetWorkOrders = 42; }),
    broken('several mistakes at once', (copy) => {
      delete copy.version;
      at(copy, 'system').baseUrl = 7;
      at(copy, 'operations', 'GetWorkOrderByCode').bogus = true;
    }),
  ];
}

describe('the structure check built ahead of time', () => {
  it('gives the verdicts and errors of the one compiled from the sources', () => {
    expect(fs.existsSync(BUILT), `${BUILT} is written by npm run build`).toBe(true);
    const built = createRequire(__filename)(BUILT) as Check;
    const compiled = structureAjv().compile(mappingJsonSchema()) as Check;
    const cases = corpus();
    let failing = 0;
    for (const [what, value] of cases) {
      const verdict = compiled(value);
      expect(built(value), what).toBe(verdict);
      expect(built.errors ?? null, what).toEqual(compiled.errors ?? null);
      if (!verdict) failing += 1;
    }
    // The corpus is what it says: the example passes, every broken copy fails.
    expect(failing).toBe(cases.length - 1);
  });
});
