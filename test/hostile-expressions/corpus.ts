/**
 * The hostile corpus (corpus.yaml) and the mapping each case runs in, shared by the in-process test
 * (corpus.test.ts) and the one against a `serve` process (corpus-serve.test.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { head } from '../support/engine';

export interface HostileCase {
  readonly name: string;
  readonly expression: string;
  /** The item number in the request path; `c` by default. */
  readonly number?: string;
  readonly expect: { readonly load?: string; readonly fails?: readonly string[]; readonly answers?: string };
}

export const CORPUS = parse(fs.readFileSync(path.join(__dirname, 'corpus.yaml'), 'utf8')) as HostileCase[];
export const TIMEOUT_MS = 1000;

/** Macros for literals too large to write out: @NUMBERS(n), @NESTED(n), @TEXT(n), @OBJECTS(n) (nested object literals). */
export function expand(expression: string): string {
  return expression
    .replace(/@NUMBERS\((\d+)\)/g, (_, n: string) => Array.from({ length: Number(n) }, (__, i) => i).join(','))
    .replace(/@NESTED\((\d+)\)/g, (_, n: string) => `${'('.repeat(Number(n))}1${')'.repeat(Number(n))}`)
    .replace(/@TEXT\((\d+)\)/g, (_, n: string) => 'x'.repeat(Number(n)))
    .replace(/@OBJECTS\((\d+)\)/g, (_, n: string) => `${'{"a": '.repeat(Number(n))}1${'}'.repeat(Number(n))}`);
}

/** A mapping whose GetItem names the item after the expression's value, and a static route to measure others by. */
export function mappingFor(expression: string): { text: string; expressionLine: number } {
  const lines = [
    ...head('http://127.0.0.1:9').trimEnd().split('\n'),
    '  GetItem:',
    '    output: |',
    '      {"number": input.number, "name": $string(',
    `      ${expand(expression)}`,
    '      )}',
    '  GetExternalIndexableValueLabel:',
    '    static:',
    '      label: ERP order id',
    'functions:',
    '  ping: "function($n) { 1 + $pong($n + 1) }"',
    '  pong: "function($n) { 1 + $ping($n + 1) }"',
    'limits:',
    `  expressionTimeoutMs: ${TIMEOUT_MS}`,
  ];
  return { text: `${lines.join('\n')}\n`, expressionLine: lines.findIndex((line) => line.includes('$string(')) + 2 };
}
