/**
 * withDefaults walks plain objects and lists itself (TypeBox 0.34 visits each object property twice,
 * which doubled the work at each level) and leaves the rest to TypeBox. Its answers must be TypeBox's:
 * this test compares them with Value.Default over the whole format on the example mappings and on
 * copies with sections left out or filled differently, so that defaults have something to fill.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { mappingFormat, withDefaults } from '../../engine/mapping/format';
import { MAPPINGS_DIR, PROJECT_ROOT } from '../../engine/paths';

type Doc = Record<string, unknown>;

/** What withDefaults did before: Value.Default over the whole format, then each push with its record's entry. */
function reference(document: unknown): unknown {
  const filled = Value.Default(mappingFormat(), structuredClone(document)) as Doc;
  const [entry] = Object.values(mappingFormat().properties.push.patternProperties);
  for (const [name, push] of Object.entries((filled.push ?? {}) as Doc)) (filled.push as Doc)[name] = Value.Default(entry, push);
  return filled;
}

const read = (file: string): Doc => parse(fs.readFileSync(file, 'utf8')) as Doc;
const example = read(path.join(MAPPINGS_DIR, 'example.yaml'));
const pushExample = read(path.join(PROJECT_ROOT, 'examples', 'push.yaml'));

function variants(): [string, unknown][] {
  const changed = (what: string, base: Doc, change: (copy: Doc) => void): [string, unknown] => {
    const copy = structuredClone(base);
    change(copy);
    return [what, copy];
  };
  const operations = (copy: Doc) => copy.operations as Record<string, Doc>;
  return [
    ['the example', example],
    ['the push example', pushExample],
    ['only the head', { version: 1, name: 'bare', system: { baseUrl: 'http://erp.local' }, operations: {} }],
    changed('no system settings but the URL', example, (copy) => { copy.system = { baseUrl: 'http://erp.local' }; }),
    changed('no limits, no functions', example, (copy) => { delete copy.limits; delete copy.functions; }),
    changed('calls without retries, pagination or outcomes', example, (copy) => {
      for (const operation of Object.values(operations(copy))) {
        for (const call of (operation.calls ?? []) as Doc[]) { delete call.retry; delete call.paginate; delete call.timeoutMs; }
        delete operation.outcomes;
      }
    }),
    changed('pushes without their optional settings', example, (copy) => {
      for (const push of Object.values((copy.push ?? {}) as Record<string, Doc>)) { delete push.batch; delete push.records; delete push.idempotencyKey; }
    }),
    changed('values of the wrong kind (defaults meet what the structure check would refuse)', example, (copy) => {
      copy.system = 'http://erp.local';
      operations(copy).GetWorkOrders = { calls: 'none' } as Doc;
      copy.push = [];
    }),
  ];
}

describe('withDefaults', () => {
  it("fills exactly what TypeBox's Value.Default fills", () => {
    for (const [what, document] of variants()) {
      const before = structuredClone(document);
      expect(withDefaults(document), what).toEqual(reference(document));
      // The document it was given is left as it was: defaults go into a copy.
      expect(document, what).toEqual(before);
    }
  });

  it('fills something: a bare mapping gains the declared defaults', () => {
    const filled = withDefaults({ version: 1, name: 'bare', system: { baseUrl: 'http://erp.local' }, operations: {} }) as unknown as { system: Doc };
    expect(filled.system.timeoutMs).toBeTypeOf('number');
    expect(filled.system.maxResponseBytes).toBe(52_428_800);
  });
});
