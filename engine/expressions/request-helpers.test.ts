import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileExpression, DEFAULT_EXPRESSION_LIMITS, type CompileOptions, type ExpressionLimits } from './compile';
import { whenFastFunctionsReady } from './fast-path/runtime';

/**
 * $hmac, $hash, $base64url, $uuid and $sqlLiteral on each way an expression runs: JSONata's interpreter,
 * the fast path's closures and the code generated from the tree. Known vectors from the standards.
 */
const WAYS: readonly { readonly name: string; readonly options: CompileOptions; readonly runs: string }[] = [
  { name: 'the interpreter', options: { fastPath: false }, runs: 'interpreter' },
  { name: 'the closures', options: { codegen: false }, runs: 'closures' },
  { name: 'the generated code', options: {}, runs: 'compiled' },
];

beforeAll(async () => {
  expect(await whenFastFunctionsReady()).toBe(true);
});

const RFC4231_CASE_2 = { key: 'Jefe', data: 'what do ya want for nothing?' };

describe.each(WAYS)('request helpers on $name', ({ options, runs }) => {
  const compile = (source: string, limits: ExpressionLimits = DEFAULT_EXPRESSION_LIMITS) => compileExpression(source, limits, '', options);
  /** Evaluates and checks the expression ran the way under test (the fast path did not give up). */
  const run = async (source: string, input: unknown = {}) => {
    const expression = compile(source);
    const value = await expression.evaluate(input);
    expect(expression.explain().runs).toBe(runs);
    if (runs !== 'interpreter') expect(expression.stats).toMatchObject({ fast: 1, fallback: 0 });
    return value;
  };

  it('$hash gives the digests of FIPS 180 "abc", in hex, base64 and base64url', async () => {
    expect(await run("$hash('sha256', 'abc')")).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(await run("$hash('sha1', t)", { t: 'abc' })).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
    expect(await run("$hash('SHA512', 'abc')")).toBe('ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f');
    expect(await run("$hash('sha256', 'abc', 'base64')")).toBe('ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=');
    expect(await run("$hash('sha256', 'abc', 'base64url')")).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
    expect(await run("$hash('sha256', '')")).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    // UTF-8 bytes, as an ERP computes them.
    expect(await run("$hash('sha256', 'Größe')")).toBe(createHash('sha256').update('Größe', 'utf8').digest('hex'));
  });

  it('$hmac gives RFC 4231 test case 2 (and RFC 2202 for SHA-1)', async () => {
    expect(await run("$hmac('sha256', k, d)", { k: RFC4231_CASE_2.key, d: RFC4231_CASE_2.data })).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
    expect(await run("$hmac('sha512', k, d)", { k: RFC4231_CASE_2.key, d: RFC4231_CASE_2.data })).toBe('164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737');
    expect(await run("$hmac('sha1', k, d)", { k: RFC4231_CASE_2.key, d: RFC4231_CASE_2.data })).toBe('effcdf6ae5eb2fa2d27416d5f184df9c259a7c79');
    expect(await run("$hmac('sha256', k, d, 'base64')", { k: RFC4231_CASE_2.key, d: RFC4231_CASE_2.data })).toBe('W9zBRr9gdU5qBCQmCJV1x1oAPwidJzmDnexYuWTsOEM=');
  });

  it('$hash and $hmac of a missing text give nothing; a missing key is an error', async () => {
    expect(await run("$hash('sha256', nothing)")).toBeUndefined();
    expect(await run("$hmac('sha256', 'k', nothing)")).toBeUndefined();
    await expect(compile("$hmac('sha256', nothing, 'text')").evaluate({})).rejects.toThrow(/\$hmac: the key \(argument 2\) must be text, not nothing/);
  });

  it('refuses an unknown algorithm or encoding, a key or text that is not text, and an empty key, in words', async () => {
    await expect(compile("$hash('md5', 'abc')").evaluate({})).rejects.toThrow(/\$hash: unknown algorithm the string "md5"; use 'sha1', 'sha256' or 'sha512'/);
    await expect(compile("$hmac('sha384', 'k', 'abc')").evaluate({})).rejects.toThrow(/\$hmac: unknown algorithm the string "sha384"/);
    await expect(compile("$hash('sha256', 'abc', 'base32')").evaluate({})).rejects.toThrow(/\$hash: unknown encoding the string "base32"; use 'hex' \(the default\), 'base64' or 'base64url'/);
    await expect(compile("$hmac('sha256', 42, 'abc')").evaluate({})).rejects.toThrow(/\$hmac: the key \(argument 2\) must be text, not the number 42/);
    await expect(compile("$hmac('sha256', k, 'abc')").evaluate({ k: { id: 1 } })).rejects.toThrow(/\$hmac: the key \(argument 2\) must be text, not an object/);
    await expect(compile("$hmac('sha256', '', 'abc')").evaluate({})).rejects.toThrow(/\$hmac: the key \(argument 2\) is empty/);
    await expect(compile("$hash('sha256', 5)").evaluate({})).rejects.toThrow(/\$hash: the text \(argument 2\) must be text, not the number 5; write \$string/);
  });

  it('hashes a text of many megabytes (a slice at a time) to the same digest', async () => {
    // Surrogate pairs astride every slice border: a cut pair would hash as two replacement characters.
    const text = '😀'.repeat(3 << 20);
    const value = await compile("$hash('sha256', t)").evaluate({ t: text });
    expect(value).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
  });

  it('$base64url writes UTF-8 bytes without padding, JWT style', async () => {
    expect(await run('$base64url(h)', { h: '{"alg":"HS256","typ":"JWT"}' })).toBe('eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9');
    expect(await run("$base64url('{\"alg\":\"HS256\"}')")).toBe('eyJhbGciOiJIUzI1NiJ9');
    expect(await run("$base64url('Größe?')")).toBe('R3LDtsOfZT8');
    expect(await run("$base64url('ÿ~')")).toBe('w79-');
    expect(await run('$base64url(nothing)')).toBeUndefined();
    await expect(compile('$base64url(5)').evaluate({})).rejects.toThrow(/\$base64url: the text must be text, not the number 5/);
  });

  it('$base64url refuses a result longer than the text limit before building it', async () => {
    const limited = compile('$base64url(t)', { ...DEFAULT_EXPRESSION_LIMITS, maxTextLength: 1000 });
    expect(await limited.evaluate({ t: 'x'.repeat(600) })).toHaveLength(800);
    await expect(limited.evaluate({ t: 'x'.repeat(900) })).rejects.toThrow(/built a text of 1200 characters; the limit is 1000/);
  });

  it('$sqlLiteral quotes text with doubled quotes and writes numbers, booleans and null as SQL', async () => {
    expect(await run('$sqlLiteral(n)', { n: "O'Brien" })).toBe("'O''Brien'");
    expect(await run("$sqlLiteral(\"it''s\")")).toBe("'it''''s'");
    expect(await run('$sqlLiteral(42)')).toBe('42');
    expect(await run('$sqlLiteral(-1.5)')).toBe('-1.5');
    expect(await run('$sqlLiteral(true) & "," & $sqlLiteral(false)')).toBe('TRUE,FALSE');
    expect(await run('$sqlLiteral(null)')).toBe('NULL');
    expect(await run('$sqlLiteral(nothing)')).toBeUndefined();
    expect(await run("\"SELECT id FROM customer WHERE name = \" & $sqlLiteral(n)", { n: "x' OR '1'='1" })).toBe("SELECT id FROM customer WHERE name = 'x'' OR ''1''=''1'");
  });

  it('$sqlLiteral refuses lists, objects, a NUL character and a result over the text limit', async () => {
    await expect(compile('$sqlLiteral(v)').evaluate({ v: [1, 2] })).rejects.toThrow(/\$sqlLiteral: takes text, a number, true, false or null, not a list/);
    await expect(compile('$sqlLiteral(v)').evaluate({ v: { a: 1 } })).rejects.toThrow(/not an object/);
    await expect(compile('$sqlLiteral(v)').evaluate({ v: 'a\u0000b' })).rejects.toThrow(/NUL character/);
    const limited = compile('$sqlLiteral(v)', { ...DEFAULT_EXPRESSION_LIMITS, maxTextLength: 100 });
    await expect(limited.evaluate({ v: "'".repeat(60) })).rejects.toThrow(/built a text of 122 characters; the limit is 100/);
  });

  it('$uuid gives a new version 4 UUID at every call', async () => {
    const value = (await run('[$uuid(), $uuid()]')) as string[];
    expect(value).toHaveLength(2);
    for (const id of value) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(value[0]).not.toBe(value[1]);
    const again = compile('$uuid()');
    expect(await again.evaluate({})).not.toBe(await again.evaluate({}));
  });
});

describe('results reused across inputs (a file read row by row)', () => {
  it('are never reused for an expression that calls $uuid, which varies without its input', () => {
    expect(compileExpression("$hash('sha256', a)").inputFieldsRead()).toEqual(['a']);
    expect(compileExpression('{ "id": $uuid(), "a": a }').inputFieldsRead()).toBeUndefined();
  });
});
