import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileExpression, DEFAULT_EXPRESSION_LIMITS, type CompiledExpression } from './compile';
import { HELPER_NAMES } from './fast-path/codegen/helpers';
import { whenFastFunctionsReady } from './fast-path/runtime';

/**
 * The generated code is written from the parse tree only: texts of the mapping (field names, string
 * literals, object keys) are JSON string literals in it, never code, however they are spelled.
 */
const HOSTILE = [
  'a"b', 'a\\b', '${x}', '*/', '/*', '\u2028', '\u2029', '__proto__', 'constructor', 'prototype', 'toString', '\\u0022',
  '"); globalThis.__codegenRan = true; ("', "'); globalThis.__codegenRan = true; ('", '}); globalThis.__codegenRan = true; ({', '</script>', 'h', 'K', 'C', 'input', 'run', '\n',
];

/** A JSONata string literal (its escapes are JSON's). */
const quoted = (text: string): string => JSON.stringify(text);

function hostileExpression(): string {
  const fields = HOSTILE.map((text, index) => `${quoted(`k${index}${text}`)}: \`${text}\``);
  const literals = `[${HOSTILE.map(quoted).join(', ')}]`;
  return `{ ${fields.join(', ')}, "all": ${literals}, "joined": ${quoted(HOSTILE[0])} & \`${HOSTILE[1]}\`, "path": \`__proto__\`.\`constructor\`, "same": \`h\` = ${quoted('h')} ? ${quoted('*/')} : \`*/\` }`;
}

/** Every field an own property, `__proto__` included (as JSON.parse makes it). */
function hostileInput(): unknown {
  const pairs = HOSTILE.map((text, index) => `${JSON.stringify(text)}: ${JSON.stringify(text === '__proto__' ? { constructor: `value ${index}` } : `value ${index}`)}`);
  return JSON.parse(`{ ${pairs.join(', ')} }`) as unknown;
}

async function answer(expression: CompiledExpression, input: unknown): Promise<unknown> {
  try {
    return { json: JSON.stringify(await expression.evaluate(structuredClone(input))) };
  } catch (error) {
    return { error: (error as { code?: string }).code };
  }
}

/** The source with its string literals (JSON.stringify's, double-quoted) and the strict-mode directive taken out. */
function outsideLiterals(code: string): string {
  return code.replace(/"(?:[^"\\]|\\.)*"/g, '""').replace("'use strict';", '');
}

beforeAll(async () => {
  expect(await whenFastFunctionsReady()).toBe(true);
});

describe('generated code', () => {
  it('gives what the closures and the interpreter give for texts full of quotes, escapes and names of JavaScript, and runs none of them', async () => {
    const source = hostileExpression();
    const compiled = compileExpression(source);
    const input = hostileInput();
    const expected = await answer(compileExpression(source, DEFAULT_EXPRESSION_LIMITS, '', { fastPath: false }), input);
    expect(expected).toHaveProperty('json');
    expect(await answer(compiled, input)).toEqual(expected);
    expect(await answer(compileExpression(source, DEFAULT_EXPRESSION_LIMITS, '', { codegen: false }), input)).toEqual(expected);
    expect(compiled.stats.fast).toBe(1);
    expect((globalThis as Record<string, unknown>).__codegenRan).toBeUndefined();

    const explained = compiled.explain();
    expect(explained.runs).toBe('compiled');
    const code = explained.code ?? '';
    // U+2028 and U+2029 are written as escapes even inside literals.
    expect(code).not.toMatch(/[\u2028\u2029]/);
    const rest = outsideLiterals(code);
    for (const fragment of ['__codegenRan', '${', '*/', '/*', '__proto__', 'constructor', '`', "'", 'script']) expect([fragment, rest.includes(fragment)]).toEqual([fragment, false]);
    // Every identifier outside the literals is the compiler's: a helper, a name it made, or JavaScript's.
    const own = new Set([...HELPER_NAMES, 'h', 'K', 'C', 'input', 'frame', 'run', 'v', 'items', 'r', 'x', 'o', 'first', 'vars', 'lookup', 'ticks', 'push', 'outerWrapper', 't', 'typeof', '_jsonata_function', '_jsonata_lambda',
      'Array', 'isArray', 'const', 'let', 'function', 'return', 'if', 'new', 'undefined', 'true', 'false', 'null', 'length',
      // The grouping of an object constructor over a list (codegen/group-by.ts).
      'tupleStream', 'throw', 'else', 'for', 'of', 'Map', 'i', 'k', 'item', 'key', 'groups', 'group', 'data', 'at', 'rest']);
    const strangers = (rest.match(/[A-Za-z_$][\w$]*/g) ?? []).filter((name) => !own.has(name) && !/^[abfpsSG]\d+$/.test(name));
    expect(strangers).toEqual([]);
  });

  it('writes negative zero, exponents and negative numbers as the interpreter reads them', async () => {
    // JSON would write -0 as 0: compared with Object.is, item by item.
    const exact = (value: unknown): unknown => (Array.isArray(value) ? value.map(exact) : Object.is(value, -0) ? '-0' : value);
    for (const source of ['-0', '[-0, -1.5e-7, 1e21, 0.1 + 0.2, -(-0)]']) {
      const compiled = compileExpression(source);
      const interpreted = compileExpression(source, DEFAULT_EXPRESSION_LIMITS, '', { fastPath: false });
      expect([source, exact(await compiled.evaluate({}))]).toEqual([source, exact(await interpreted.evaluate({}))]);
      expect(compiled.explain().runs).toBe('compiled');
    }
    expect(exact(await compileExpression('-0').evaluate({}))).toBe('-0');
  });

  it('hands literals, operators and constructors to a call as they are, and a function value wrapped, as the interpreter does', async () => {
    const sources = [
      '$uppercase("a" & b)', '$substring(b, 1 + 1, -1)', '$count([a, $string])', '$count([$string][0])', '$map([1, 2], function($v) { $v * 2 })',
      '$map(a, [$string][0])', '$keys({ "k": $string })', '$string({ "k": $string })', '$boolean(a = 1 and b)', '$count([1..3])', '$sum([1, 2].($ * 2))',
      '( $f := function($x) { $x & "!" }; $map(a, $f) )', '$append([1], true)', '$exists(null)', '$map(a, $exists(b) ? $string : $uppercase)',
    ];
    const inputs = [{ a: [1, 'x'], b: 'text' }, { a: 1, b: null }, {}];
    for (const source of sources) {
      const compiled = compileExpression(source);
      expect(compiled.explain().runs, source).toBe('compiled');
      for (const input of inputs) {
        const expected = await answer(compileExpression(source, DEFAULT_EXPRESSION_LIMITS, '', { fastPath: false }), input);
        expect(await answer(compiled, input), `${source} on ${JSON.stringify(input)}`).toEqual(expected);
      }
    }
    // A literal or an operator's result is never a function value: the call takes it without the check.
    const code = compileExpression('$substring(b & "x", 1 + 1)').explain().code ?? '';
    expect(code).toContain('applyBuiltin');
    expect(code).not.toContain('functionArgument(run');
    expect(compileExpression('$substring(b, 1)').explain().code).toContain('functionArgument(run');
    // A chain `lhs ~> $f(args)` plans the built-in's signature at its own call site too, as a call by name does.
    const chain = compileExpression('a ~> $substring(1) ~> $uppercase()');
    expect(chain.explain().code?.match(/apply\(run, procedure, \[left[^\]]*\], input, s\d+\)/g)).toHaveLength(2);
    for (const input of [{ a: 'xyz' }, { a: 5 }, {}]) {
      expect(await answer(chain, input)).toEqual(await answer(compileExpression('a ~> $substring(1) ~> $uppercase()', DEFAULT_EXPRESSION_LIMITS, '', { fastPath: false }), input));
    }
  });

  it('answers without walking the answer for a function only called by a built-in, and leaves one that reaches the answer to the interpreter', async () => {
    // 120 objects deep: the walk for a function value (fast-path/index.ts) gives up past 100 levels and hands the answer to the interpreter.
    const deep = (call: string): string => `$reduce([1..120], function($acc, $v) { { "a": $acc } }, {}) ~> ${call}`;
    const calledOnly = [
      deep('$map(function($v) { $v })'), deep('$map($string) ~> $count()'), `( $f := function($x) { $x }; ${deep('$map($f)')} )`, `[${deep('$string()')}] ~> $sort(function($p, $q) { $p > $q })`,
      `$match("LOT-K4821", /LOT-([A-Z][0-9]{4})/).groups[0] & ${deep('$string()')}`, `$sift({ "a": ${deep('$lookup("a")')} }, function($v) { $exists($v) })`,
      // A function's body that is one call (a tail call, run by the trampoline), and a $filter join that scans a short list.
      `( $n := function($t) { $replace($t, /x/, "y") }; { "n": $n("axb"), "deep": ${deep('$string()')} } )`,
      `$string($filter([{ "a": 1 }, { "a": 2 }], function($l) { $l.a = 1 })) & ${deep('$string()')}`,
    ];
    for (const source of calledOnly) {
      const compiled = compileExpression(source);
      const interpreted = await answer(compileExpression(source, DEFAULT_EXPRESSION_LIMITS, '', { fastPath: false }), {});
      expect(interpreted).toHaveProperty('json');
      expect(await answer(compiled, {}), source).toEqual(interpreted);
      expect([source, compiled.stats]).toEqual([source, { fast: 1, fallback: 0, interpreter: 0 }]);
    }
    // A function value that reaches the answer: made in the body, read as a value there, or handed over by a built-in that answers with it.
    const reaching = [
      '$map([1, 2], function($v) { function($x) { $x + $v } })', '( $f := function($x) { $x }; $map([1], function($v) { $f }) )',
      '$sort([1], function($p, $q) { $p > $q }) ~> $append($string)', '$map([1], $string) ~> $append(function($x) { $x })',
      '( $f := function($x) { $x }; { "f": $f } )', '$lookup({ "f": $string }, "f")', '( $f := function($x) { $append([$x], $string) }; $f(1) )',
    ];
    for (const source of reaching) {
      const compiled = compileExpression(source);
      expect(compiled.explain().runs, source).toBe('compiled');
      const interpreted = await answer(compileExpression(source, DEFAULT_EXPRESSION_LIMITS, '', { fastPath: false }), {});
      expect(await answer(compiled, {}), source).toEqual(interpreted);
      expect([source, compiled.stats]).toEqual([source, { fast: 0, fallback: 1, interpreter: 0 }]);
    }
  });

  it('says why an expression is not compiled', () => {
    expect(compileExpression('$map(a, $eval)').explain()).toMatchObject({ runs: 'interpreter', why: expect.stringContaining("outside the fast path's subset") });
    expect(compileExpression('a{b: c}').explain()).toMatchObject({ runs: 'compiled', delegated: ['a path with filters, order-by, tuple bindings (@, #) or grouping'] });
    expect(compileExpression('a.b', DEFAULT_EXPRESSION_LIMITS, '', { codegen: false }).explain()).toEqual({ runs: 'closures', why: 'code generation is turned off (--no-codegen)' });
  });
});

describe('a process that disallows code generation from strings', () => {
  it('runs the closure fast path with the same answer, and says why', () => {
    // The built engine in a real Node process started with the flag (`npm run build` first).
    const script = `
      const { compileExpression } = require(${JSON.stringify(path.resolve('dist/engine/expressions/compile.js'))});
      const { whenFastFunctionsReady } = require(${JSON.stringify(path.resolve('dist/engine/expressions/fast-path/runtime.js'))});
      (async () => {
        await whenFastFunctionsReady();
        const expression = compileExpression('{ "n": a.b & "!", "c": $count(a.c) }');
        const value = await expression.evaluate({ a: { b: 'x', c: [1, 2] } });
        process.stdout.write(JSON.stringify({ value, explained: expression.explain(), stats: expression.stats }));
      })();`;
    const output = JSON.parse(execFileSync(process.execPath, ['--disallow-code-generation-from-strings', '-e', script], { encoding: 'utf8' })) as Record<string, unknown>;
    expect(output).toEqual({
      value: { n: 'x!', c: 2 },
      explained: { runs: 'closures', why: expect.stringContaining('code generation from strings is disallowed in this process') },
      stats: { fast: 1, fallback: 0, interpreter: 0 },
    });
  });
});

describe('inline field reads', () => {
  /** Owners whose fields the quick read must not answer for: inherited, `__proto__`, null prototype, a class's. */
  function owners(): Record<string, unknown> {
    const inherited = Object.create({ a: 'inherited', toString: 'inherited too' }) as Record<string, unknown>;
    inherited.b = 'own';
    const bare = Object.create(null) as Record<string, unknown>;
    bare.a = 'bare';
    bare.__proto__ = 'bare proto';
    class Point { constructor(readonly a: number) {} }
    return {
      inherited, bare, point: new Point(3), json: JSON.parse('{ "__proto__": { "a": "from json" }, "a": [1, [2, 3]], "toString": 4 }') as unknown,
      plain: { a: 1, constructor: 'own constructor' }, list: [{ a: 1 }, { a: [2, 3] }, 5, null, { b: 1 }], nothing: null, text: 'a',
      flagged: { _jsonata_lambda: true, a: 'hidden' },
    };
  }

  it.each([
    'inherited.a', 'inherited.b', 'inherited.toString', 'bare.a', 'bare.__proto__', 'point.a', 'json.__proto__.a', 'json.a', 'json.toString',
    'plain.constructor', 'plain.toString', 'plain.__proto__', 'list.a', 'nothing.a', 'text.a', 'flagged.a', '[list.a]', '($f := function($x) { $x.a }; $f(plain))',
    '($f := function($x) { $x }; $f.body)',
  ])('%s answers as the interpreter and the closures do', async (source) => {
    const interpreted = await answerOf(compileExpression(source, DEFAULT_EXPRESSION_LIMITS, '', { fastPath: false }), owners());
    expect(await answerOf(compileExpression(source), owners())).toEqual(interpreted);
    expect(await answerOf(compileExpression(source, DEFAULT_EXPRESSION_LIMITS, '', { codegen: false }), owners())).toEqual(interpreted);
  });

  async function answerOf(expression: CompiledExpression, input: unknown): Promise<unknown> {
    try {
      return { json: JSON.stringify(await expression.evaluate(input)) };
    } catch (error) {
      return { error: (error as { code?: string }).code };
    }
  }
});

describe('filters and order-by written as code', () => {
  function data(): Record<string, unknown> {
    const lines = Array.from({ length: 40 }, (_, index) => ({
      order: index % 5, n: (index * 7) % 11, state: index % 3 === 0 ? 'cancel' : 'sale', code: `L${index}`, tags: index % 4 === 0 ? ['a', 'b'] : 'c', list: [index, index + 1],
    }));
    return { lines, few: lines.slice(0, 3), orders: [{ id: 1 }, { id: 3 }, { id: 9 }], nested: [[1, 2], [3]], mixed: [{ n: 1 }, { n: 'x' }], text: 'abc' };
  }

  it.each([
    '($l := lines; $l[order = 2].code)',
    '($l := lines; $l[order = 2 and state != "cancel"].code)',
    '($l := lines; $l[order = 2][n > 3].code)',
    '($l := lines; $o := orders[1]; $l[order = $o.id].code)',
    '($l := lines; $o := orders[1]; $l[$o.id = order].code)',
    '($l := lines; $l[order = {"a": 1}])',
    '($l := few; $l[order = 0].code)',
    '($l := lines; $l[0].code)', '($l := lines; $l[-1].code)', '($l := lines; $l[[0, 2, 2]].code)', '($l := lines; $l[99])',
    '($l := lines; $l[n].code)', '($l := lines; $l[code].code)', '($l := lines; $l[tags].code)', '($l := lines; $l[list].code)',
    '($l := lines; $l[($i := n; $i > 5)].code)',
    '($x := nested; $x[0])', '($x := nested; $x[1])', '($t := text; $t[0])', '($t := text; $t[true])', '$nothing[true]', '$nothing[$error("no")]',
    '($l := lines; $l[$error("boom")])', '($l := lines; $l[n / 0])', '($l := few; $l[order = $lookup({}, "x")])',
    '$map(orders, function($o) { $count(lines[order = $o.id]) })',
    '($lines := lines; $f := function($o) { $lines[order = $o.id].code }; orders.$f($))',
    '($lines := lines; orders.($o := $; $lines[order = $o.id]).code)',
    '$[id > 1]', 'orders.$[id > 1]',
    '($l := lines; $l^(n).code)', '($l := lines; $l^(>n, code).code)', '($l := lines; $l[order = 1]^(>n).code)', '($l := lines; $l[order = 1]^(n).($.code & "!"))',
    '($l := few; $l[order = 9]^(n).code)', '($m := mixed; $m^(n))', '($m := mixed; $m^(n).n)', '($l := lines[0]; $l^(n))', '($l := lines; $l^(n)[0].code)',
    'lines^(>n)[order = 1].code', '($l := lines; $l^($error("key")))', '($l := lines; [$l[order = 3]^(n).$string(n)])',
    '($l := lines; $l{ $string(order): $count(n) })', '($l := lines; $l[order = 1]{ state: $sum(n) })', '$nothing{ "a": 1 }', '($e := []; $e{ "a": 1 })',
    '($o := lines; $o^(n){ state: $count(code) })', 'lines^(>n, code).code', 'lines.list^($)', 'lines^(>n){ state: code }', 'orders^(>id)', '$nothing^(a){ "k": 1 }',
    'nothing.a^(b){ "k": 1 }', 'few.list^(>$)', 'orders.id^($){ "k": $ }', 'lines^(n).tags^($){ $: $count($) }',
    '($l := lines; $l{ n: code })', '($l := lines; $l{ state: code, "sale": n })', '($l := few; $l{ code: list })', 'orders.$[id > 1]{ "k": id }',
  ])('%s answers as the interpreter and the closures do', async (source) => {
    const interpreted = await answerOf(compileExpression(source, DEFAULT_EXPRESSION_LIMITS, '', { fastPath: false }), data());
    const compiled = compileExpression(source);
    expect(await answerOf(compiled, data())).toEqual(interpreted);
    expect(await answerOf(compileExpression(source, DEFAULT_EXPRESSION_LIMITS, '', { codegen: false }), data())).toEqual(interpreted);
  });

  it('keeps the time limit and the sequence limit inside a generated filter loop', async () => {
    // A filter per item over 8,000 items: 64 million predicates, far past 300 ms on any evaluator.
    const runaway = compileExpression('($l := input.list; $sum($l.($x := a; $count($l[a < $x]))))', { ...DEFAULT_EXPRESSION_LIMITS, timeoutMs: 300 });
    expect(runaway.explain().code).toContain('timesKept(');
    await expect(runaway.evaluate({ input: { list: Array.from({ length: 8000 }, (_, a) => ({ a })) } })).rejects.toMatchObject({ code: 'D1012' });
    expect(runaway.stats).toEqual({ fast: 0, fallback: 1, interpreter: 0 });
    const limits = { ...DEFAULT_EXPRESSION_LIMITS, maxSequence: 3 };
    for (const source of ['($l := a; $l[true])', '($l := a; $l^(b).b)', 'a[b > 0].b']) {
      const input = { a: [{ b: 1 }, { b: 2 }, { b: 3 }, { b: 4 }] };
      const interpreted = await answerOf(compileExpression(source, limits, '', { fastPath: false }), input);
      expect(interpreted, source).toEqual({ error: expect.stringMatching(/^(D2015|list)$/) });
      expect(await answerOf(compileExpression(source, limits), input), source).toEqual(interpreted);
    }
  });

  it('writes a variable\'s filters, the join index and an order-by after the first step as code', () => {
    const join = compileExpression('($l := lines; $o := orders[0]; $l[order = $o.id and state != "cancel"]^(>n).code)').explain();
    expect(join.runs).toBe('compiled');
    expect(join.delegated ?? []).not.toContain('a filter [...] after a value');
    expect(join.delegated ?? []).not.toContain('a path with filters, order-by, tuple bindings (@, #) or grouping');
    expect(join.code).toContain('joinedItems(');
    expect(join.code).toContain('evaluateSort(');
    expect(compileExpression('($o := lines; $o^(n){ state: $count(code) })').explain().delegated).toEqual([]);
    const grouped = compileExpression('($l := lines; $l[order = 1]{ state: $sum(n) })').explain();
    expect(grouped.delegated ?? []).toEqual([]);
    expect(grouped.code).toContain('addToGroup(');
    expect(grouped.code).not.toContain('evaluateGroup(');
    const scan = compileExpression('($ls := lines; $map(orders, function($o) { $ls[n > $o.id] }))').explain().code ?? '';
    expect(scan).toContain('timesKept(');
    expect(compileExpression('($l := lines; $l[0])').explain().code).toContain('itemByIndex(');
  });

  async function answerOf(expression: CompiledExpression, input: unknown): Promise<unknown> {
    try {
      return { json: JSON.stringify(await expression.evaluate(input)) };
    } catch (error) {
      // A JSONata error by its code; the engine's limits (guard.ts) by the limit they name.
      return { error: (error as { code?: string }).code ?? (error as { limit?: string }).limit };
    }
  }
});
