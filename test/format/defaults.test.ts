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
import { mappingFormat } from '../../engine/mapping/format';
import { withDefaults } from '../../engine/mapping/format/defaults';
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
    ...[
      { type: 'none' }, { type: 'basic', username: 'u', password: 'p' }, { type: 'bearer', token: 't' },
      { type: 'apiKey', name: 'X-Key', value: 'v' }, { type: 'oauth2ClientCredentials', tokenUrl: 'https://idp.local/token', clientId: 'c', clientSecret: 's' },
    ].map((auth) => changed(`system.auth of type ${auth.type}, its settings left out`, example, (copy) => { (copy.system as Doc).auth = auth; })),
    ...[
      { style: 'page', items: 'body.items' }, { style: 'offset', items: 'body.items', pageSize: 50 }, { style: 'cursor', items: 'body.items', cursorParam: 'cursor', next: 'body.next' },
      { style: 'nextLink', items: 'body.items', next: 'body.next' }, { style: 'linkHeader', items: 'body.items' },
    ].map((paginate) => changed(`pagination of style ${paginate.style}`, example, (copy) => {
      for (const operation of Object.values(operations(copy))) for (const call of (operation.calls ?? []) as Doc[]) call.paginate = paginate;
    })),
    ...[{ type: 'none' }, { type: 'apiKey', keys: ['k'] }, { type: 'basic', users: [{ username: 'u', password: 'p' }] }]
      .map((auth) => changed(`inbound.auth of type ${auth.type}`, example, (copy) => { copy.inbound = { auth }; })),
    changed('no inbound block and no auth (the variant is the default)', example, (copy) => { delete copy.inbound; (copy.system as Doc).auth = undefined; }),
    changed('pushes authenticated each way', pushExample, (copy) => {
      const pushes = Object.values((copy.push ?? {}) as Record<string, Doc>);
      const ways = [{ type: 'hmac', secrets: ['s'] }, { type: 'apiKey', keys: ['k'] }, { type: 'basic', users: [{ username: 'u', password: 'p' }] }];
      pushes.forEach((push, index) => { push.auth = ways[index % ways.length]; });
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

describe('withDefaults on variants', () => {
  it("fills the settings of the variant the value names, and only that variant's", () => {
    const filled = withDefaults({ version: 1, name: 'bare', system: { baseUrl: 'http://erp.local' }, inbound: { auth: { type: 'apiKey', keys: ['k'] } }, operations: {} }) as unknown as { inbound: { auth: Doc } };
    expect(filled.inbound.auth).toEqual({ type: 'apiKey', header: 'X-Api-Key', keys: ['k'] });
  });
});
