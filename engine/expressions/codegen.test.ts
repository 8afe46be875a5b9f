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
      'Array', 'isArray', 'const', 'let', 'function', 'return', 'if', 'new', 'undefined', 'true', 'false', 'null', 'length']);
    const strangers = (rest.match(/[A-Za-z_$][\w$]*/g) ?? []).filter((name) => !own.has(name) && !/^[abfpsS]\d+$/.test(name));
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
  });

  it('answers without walking the answer for a function only called by a built-in, and leaves one that reaches the answer to the interpreter', async () => {
    // 120 objects deep: the walk for a function value (fast-path/index.ts) gives up past 100 levels and hands the answer to the interpreter.
    const deep = (call: string): string => `$reduce([1..120], function($acc, $v) { { "a": $acc } }, {}) ~> ${call}`;
    const calledOnly = [
      deep('$map(function($v) { $v })'), deep('$map($string) ~> $count()'), `( $f := function($x) { $x }; ${deep('$map($f)')} )`, `[${deep('$string()')}] ~> $sort(function($p, $q) { $p > $q })`,
      `$match("LOT-K4821", /LOT-([A-Z][0-9]{4})/).groups[0] & ${deep('$string()')}`, `$sift({ "a": ${deep('$lookup("a")')} }, function($v) { $exists($v) })`,
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
      '( $f := function($x) { $x }; { "f": $f } )', '$lookup({ "f": $string }, "f")',
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
    expect(compileExpression('a[b = 1]').explain()).toMatchObject({ runs: 'compiled', delegated: ['a path with filters, order-by, tuple bindings (@, #) or grouping'] });
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
