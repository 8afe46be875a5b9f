import { readFileSync } from 'node:fs';
import jsonata from 'jsonata';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createErpState } from '../../examples/erp/data';
import { loadMapping } from '../mapping/load';
import { compileExpression, DEFAULT_EXPRESSION_LIMITS, type CompiledExpression } from './compile';
import { whenFastFunctionsReady } from './fast-path/runtime';
import { createPrelude } from './prelude';

/**
 * Differential tests: the fast path must give exactly what the interpreter gives (value, undefined-ness,
 * the hidden sequence flags, null-prototype objects, error or success) for every expression of the
 * example mapping and a corpus of edge cases, on the example ERP's data and on generated shapes.
 */
const EXAMPLE = 'mappings/example.yaml';

function exampleExpressions(): { source: string; compiled: CompiledExpression }[] {
  const { mapping } = loadMapping(EXAMPLE, { env: { ERP_URL: 'http://127.0.0.1:1' } });
  const found: { source: string; compiled: CompiledExpression }[] = [];
  const seen = new Set<object>();
  const walk = (value: unknown): void => {
    if (!value || typeof value !== 'object' || seen.has(value)) return;
    seen.add(value);
    const candidate = value as Partial<CompiledExpression>;
    if (typeof candidate.source === 'string' && typeof candidate.evaluate === 'function') {
      found.push({ source: candidate.source, compiled: value as CompiledExpression });
      return;
    }
    if (value instanceof Map) for (const item of value.values()) walk(item);
    for (const key of Object.keys(value)) walk((value as Record<string, unknown>)[key]);
  };
  walk(mapping);
  return found;
}

const functions = (parse(readFileSync(EXAMPLE, 'utf8')) as { functions: Record<string, string> }).functions;
const preludeFor = createPrelude(Object.entries(functions).map(([name, text]) => ({ name, text })));

const EDGE_CASES = [
  'a', 'a.b', 'a.b.c', 'a.b.c.d', '$', '$$', '$$.a.b', '[a]', '[a.b]', '[a, b, [c]]', '[[a.b], a.b]', '[]', '{}',
  '{ "x": a, "y": b.c }', 'a.{ "x": b, "y": c }', 'a.b.{ "k": $ }', '[a.{ "x": b }]', 'a.{ b: c }', '{ a: b }', 'a.{ "x": b }.x',
  'a & b', 'a & 1', 'a & b.c', '"n:" & a', 'a + b', 'a - 1', 'a * b', 'a / b', 'a % 2', '-a', 'a = b', 'a != b', 'a = 1',
  'a = "1"', 'a < b', 'a <= 2', 'a > "m"', 'a >= b', 'a and b', 'a or b', 'a in b', 'a ? b : c', 'a ? b', 'a = 1 ? "one" : a = 2 ? "two" : null',
  '$exists(a)', '$count(a)', '$count(a.b)', '$sum(a.b)', '$string(a)', '$string(a.b)', '$string()', 'a.$string()', '$lookup(a, "b")',
  '$lookup({"P": "Piece", "K": "Kg"}, a)', '{"P": "Piece"}.$lookup($, a)', '$merge([{}, a.{ b: c }])', '$merge(a)', '$join(a, ",")',
  '$boolean(a)', '$not(a)', '$number(a)', '$length(a)', '$uppercase(a)', '$trim(b)', '$keys(a)', '$append(a, b)', '$distinct(a)',
  '$toJson(a)', '$parseJson(a)', '$isoDateTime(a)', "$isoDateTime(b, 'DD.MM.YYYY')", "$enumValue('UnitOfMeasure', a)",
  "$enumName('WorkOrderStatus', a)", '$base64FromText(a)', '$textFromBase64(a)', '( $x := a; $x.b )', '( $x := a; $y := $x.b; [$x, $y] )',
  '( $f := function($v) { $v.b }; $f(a) )', '( $f := function($v) { { "v": $v, "c": c } }; a.$f(b) )',
  '( $g := function($v) { $string($v) }; $g(a) & $g(b) )', '( $h := function($v) { $v ? $string() : $count($v) }; a.$h(b) )',
  '( $k := function($v)<s-:s> { $v & "!" }; a.$k() )', '( $m := function() { $ }; a.$m() )', '[a.( $d := b; { "d": $d, "c": c } )]',
  'a.b = 404', "a.c = 'BLOCKED'", '$sum(a.b.c)', '$count(a) > 0 ? a : []',
];

/** The value with the markers JSONata keeps on arrays and objects, so that those must match too. */
function describeValue(value: unknown): unknown {
  if (value === undefined) return { undefined: true };
  if (typeof value === 'function') return { function: true };
  if (Array.isArray(value)) {
    const flags = Object.getOwnPropertyNames(value).filter((key) => key !== 'length' && !/^\d+$/.test(key));
    const marks = flags.sort().map((key) => `${key}:${typeof (value as unknown as Record<string, unknown>)[key] === 'function' ? 'fn' : String((value as unknown as Record<string, unknown>)[key])}`);
    return { array: value.map(describeValue), marks };
  }
  if (value && typeof value === 'object') {
    const entries = Object.keys(value).map((key) => [key, describeValue((value as Record<string, unknown>)[key])]);
    return { object: entries, nullPrototype: Object.getPrototypeOf(value) === null };
  }
  return { value, type: typeof value };
}

async function outcome(expression: CompiledExpression, input: unknown): Promise<unknown> {
  try {
    return { ok: describeValue(await expression.evaluate(input)) };
  } catch (error) {
    const fault = error as { code?: string; message?: string };
    return { error: fault.code ?? null, message: fault.message };
  }
}

/** A seeded generator of nested shapes over the names an expression reads. */
function shapes(seed: number, names: readonly string[], texts: readonly string[], count: number): unknown[] {
  let state = seed;
  const random = (): number => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const value = (depth: number): unknown => {
    const kind = Math.floor(random() * (depth > 3 ? 8 : 13));
    switch (kind) {
      case 0: return null;
      case 1: return Math.floor(random() * 5);
      case 2: return random() * 100 - 50;
      case 3: return pick(['1', '2.5', '', ' ', 'x', '30.11.2026', '2026-01-02', '{"a":1}', '[1]', 'aGk=']);
      case 4: return pick(texts);
      case 5: return random() < 0.5;
      case 6: return pick(names);
      case 7: return [];
      case 8: case 9: return object(depth + 1);
      case 10: return [object(depth + 1)];
      case 11: return Array.from({ length: 1 + Math.floor(random() * 3) }, () => (random() < 0.7 ? object(depth + 1) : value(depth + 1)));
      default: return [value(depth + 1), [value(depth + 1)]];
    }
  };
  const object = (depth: number): Record<string, unknown> => {
    const result: Record<string, unknown> = {};
    for (const name of names) if (random() < 0.55) result[name] = value(depth);
    return result;
  };
  return Array.from({ length: count }, (_, index) => (index % 9 === 8 ? value(2) : object(0)));
}

function namesIn(source: string): { names: string[]; texts: string[] } {
  const names = new Set(['a', 'b', 'c', 'd']);
  const texts = new Set(['PCE', 'KG', 'IN', 'OUT', 'BLOCKED', 'Piece', 'Kilogram', 'UnitOfMeasure', 'RequestType']);
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    const typed = node as { type?: unknown; value?: unknown };
    if (typed.type === 'name' && typeof typed.value === 'string') names.add(typed.value);
    if (typed.type === 'string' && typeof typed.value === 'string') texts.add(typed.value);
    for (const child of Object.values(node)) visit(child);
  };
  visit(jsonata(source).ast());
  return { names: [...names], texts: [...texts] };
}

function erpContexts(): unknown[] {
  const state = createErpState({ extraOrders: 40 });
  const orders = JSON.parse(JSON.stringify([...state.salesOrders.values()])) as Record<string, unknown>[];
  const articles = JSON.parse(JSON.stringify([...state.articles.values()])) as unknown[];
  const contexts: unknown[] = [{ calls: { orders: { items: orders } } }, { calls: { batch: { body: { salesOrders: orders.slice(0, 3) } } } }];
  for (const order of orders) {
    contexts.push({ input: { Code: order.docNo, code: order.docNo }, calls: { order: { status: 200, body: order } }, response: { status: 200, body: order } });
  }
  for (const article of articles) contexts.push({ input: { number: 'A-1' }, calls: { article: { status: 200, body: article } }, response: { status: 404, body: { error: { message: 'gone' } } } });
  contexts.push({ input: orders.map((order, index) => ({ workOrderNumber: order.docNo, externalData: index % 3 === 0 ? null : JSON.stringify(order.custom ?? {}) })) });
  contexts.push({ input: [], calls: {} }, {}, { response: { status: 404 } }, [orders[0]], { input: orders[0] });
  return contexts;
}

async function compare(source: string, prelude: string, fast: CompiledExpression, inputs: readonly unknown[]): Promise<number> {
  const interpreter = compileExpression(source, DEFAULT_EXPRESSION_LIMITS, prelude, { fastPath: false });
  for (const input of inputs) {
    const [fastAnswer, slowAnswer] = [await outcome(fast, structuredClone(input)), await outcome(interpreter, structuredClone(input))];
    expect({ source, input, answer: fastAnswer }).toEqual({ source, input, answer: slowAnswer });
  }
  return inputs.length;
}

beforeAll(async () => {
  expect(await whenFastFunctionsReady()).toBe(true);
});

describe('fast path', () => {
  it('covers every expression of the example mapping and matches the interpreter on ERP data and generated shapes', async () => {
    const expressions = exampleExpressions();
    expect(expressions.length).toBeGreaterThan(40);
    const contexts = erpContexts();
    let compared = 0;
    for (const [index, { source, compiled }] of expressions.entries()) {
      const { names, texts } = namesIn(`(${preludeFor(source)}\n${source}\n)`);
      const generated = shapes(index + 1, [...names, 'input', 'calls', 'response'], texts, 60);
      compared += await compare(source, preludeFor(source), compiled, [...contexts, ...generated]);
    }
    expect(compared).toBeGreaterThan(expressions.length * 100);
  }, 120_000);

  it('takes the fast path for the hot expressions of the example mapping', () => {
    const fast = new Map(exampleExpressions().map(({ source, compiled }) => [source.trim(), compiled.fastPath]));
    for (const hot of ['calls.orders.items.$workOrder($)', '$workOrder(calls.order.body)', '$item(calls.article.body)', 'response.status = 404', 'input.Code', "response.body.state = 'BLOCKED'"]) {
      expect([hot, fast.get(hot)]).toEqual([hot, true]);
    }
    const exportValues = [...fast.keys()].find((source) => source.includes('$parseJson(externalData)'));
    expect(exportValues && fast.get(exportValues)).toBe(true);
    // Every expression of the example is in the subset today: one falling back to the interpreter is a regression.
    expect([...fast.entries()].filter(([, isFast]) => !isFast)).toEqual([]);
  });

  it('matches the interpreter on the edge cases', async () => {
    for (const [index, source] of EDGE_CASES.entries()) {
      const compiled = compileExpression(source);
      expect([source, compiled.fastPath]).toEqual([source, true]);
      const { names, texts } = namesIn(source);
      const fixed = [undefined, null, 0, 'x', [], [[]], {}, { a: [] }, { a: null }, { a: [1, [2, 3]] }, { a: { b: [] } }, { a: '5', b: 5 }, { a: 1, b: '1' }];
      await compare(source, '', compiled, [...fixed, ...shapes(1000 + index, names, texts, 150)]);
    }
  }, 120_000);

  it('falls back to the interpreter outside the subset', () => {
    const outside = ['a[0]', 'a[b = 1]', 'a^(b)', 'a.b{c: d}', '**.a', 'a.*', 'a.b.%.c', '[1..3]', 'a ~> $string()', '$eval("1")', '$now()', '/x/', 'a@$x', 'a#$i',
      '( $f := function($n) { $n = 0 ? 0 : $f($n - 1) }; $f(3) )', '$string', '( $string := 1; $string )', '$map(a, function($v) { $v })', 'a[]', '$ ~> |a|{"b": 1}|', '( $f := function($v) { $v } )',
      '{ "a": $y := 1 }'];
    for (const source of outside) expect([source, compileExpression(source).fastPath]).toEqual([source, false]);
  });

  it('leaves the fast path when the depth limit could be reached', () => {
    expect(compileExpression('a.b.c', { ...DEFAULT_EXPRESSION_LIMITS, maxDepth: 3 }).fastPath).toBe(false);
  });

  it('reports the interpreter’s error for a helper that throws and for a sequence over the limit', async () => {
    const unit = compileExpression("$enumValue('UnitOfMeasure', a)");
    expect(unit.fastPath).toBe(true);
    await expect(unit.evaluate({ a: 'Parsec' })).rejects.toMatchObject({ message: expect.stringContaining('"Parsec" is not a UnitOfMeasure') });
    const limited = compileExpression('a.b', { ...DEFAULT_EXPRESSION_LIMITS, maxSequence: 3 });
    await expect(limited.evaluate({ a: [{ b: 1 }, { b: 2 }, { b: 3 }, { b: 4 }] })).rejects.toMatchObject({ code: 'D2015' });
    const appended = compileExpression('$append(a, b)', { ...DEFAULT_EXPRESSION_LIMITS, maxSequence: 3 });
    expect(appended.fastPath).toBe(true);
    await expect(appended.evaluate({ a: [1, 2], b: [3, 4] })).rejects.toMatchObject({ code: 'D2015' });
  });
});
