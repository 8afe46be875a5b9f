import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileExpression, DEFAULT_EXPRESSION_LIMITS, type CompiledExpression, type CompileOptions, type ExpressionLimits } from './compile';
import { comparedWithTheClockStill, describeValue } from '../../test/support/jsonata-values';

/**
 * JSONata's own reference suite (test/fixtures/jsonata-suite.json: all 1,686 cases of jsonata-js v2.2.2,
 * MIT, see its `licence`), run side by side through the three ways an expression can run: compiled to one
 * generated function, the closure fast path, and the interpreter. Every case must give the same value
 * (sequence marks included) or the same error code all three ways, and at least 98% of the cases that
 * parse must take the compiled path: answered by the generated function, or, for a case whose answer is
 * an error, found to fail by it (the interpreter then reruns it for JSONata's own error object).
 */
interface SuiteCase {
  readonly group: string;
  readonly case: string;
  readonly expr: string;
  readonly data?: unknown;
  readonly dataset?: string | null;
  readonly bindings?: Record<string, unknown>;
  readonly depth?: number;
  readonly timelimit?: number;
}

const suite = JSON.parse(readFileSync('test/fixtures/jsonata-suite.json', 'utf8')) as { datasets: Record<string, unknown>; cases: SuiteCase[] };

function inputOf(suiteCase: SuiteCase): unknown {
  if ('data' in suiteCase) return suiteCase.data;
  return typeof suiteCase.dataset === 'string' ? suite.datasets[suiteCase.dataset] : undefined;
}

function limitsOf(suiteCase: SuiteCase): ExpressionLimits {
  return { ...DEFAULT_EXPRESSION_LIMITS, ...(suiteCase.depth ? { maxDepth: suiteCase.depth } : {}), ...(suiteCase.timelimit ? { timeoutMs: suiteCase.timelimit, wallTimeoutMs: suiteCase.timelimit } : {}) };
}

/** The value with JSONata's marks on arrays and objects, or the error's code. */
async function outcome(expression: CompiledExpression, suiteCase: SuiteCase): Promise<{ value?: unknown; error?: string }> {
  try {
    return { value: describeValue(await expression.evaluate(structuredClone(inputOf(suiteCase)), structuredClone(suiteCase.bindings ?? {}))) };
  } catch (error) {
    return { error: (error as { code?: string }).code ?? String(error) };
  }
}

function compiledAs(suiteCase: SuiteCase, options: CompileOptions): CompiledExpression | undefined {
  try {
    return compileExpression(suiteCase.expr, limitsOf(suiteCase), '', options);
  } catch {
    return undefined; // a syntax error: the same text fails the same way whichever path would run it
  }
}

/** True when the generated function answered, or found the evaluation fails (the interpreter then gave the error). */
function tookCompiledPath(expression: CompiledExpression, expected: { error?: string }): boolean {
  if (expression.explain().runs !== 'compiled') return false;
  return expression.stats.fast === 1 || (expected.error !== undefined && expression.stats.fallback === 1);
}

/** The cases that loop until their time limit: the clock must run for them. */
const timed = suite.cases.filter((suiteCase) => suiteCase.timelimit !== undefined);
const untimed = suite.cases.filter((suiteCase) => suiteCase.timelimit === undefined);

async function runCases(cases: readonly SuiteCase[]): Promise<{ parsed: number; compiled: number; notCompiled: string[] }> {
  const counts = { parsed: 0, compiled: 0, notCompiled: [] as string[] };
  for (const suiteCase of cases) {
    const compiled = compiledAs(suiteCase, {});
    if (!compiled) continue;
    counts.parsed += 1;
    const closures = compiledAs(suiteCase, { codegen: false }) as CompiledExpression;
    const interpreter = compiledAs(suiteCase, { fastPath: false }) as CompiledExpression;
    const name = `${suiteCase.group}/${suiteCase.case}: ${suiteCase.expr}`;
    const expected = await outcome(interpreter, suiteCase);
    expect({ name, compiled: await outcome(compiled, suiteCase) }).toEqual({ name, compiled: expected });
    expect({ name, closures: await outcome(closures, suiteCase) }).toEqual({ name, closures: expected });
    if (tookCompiledPath(compiled, expected)) counts.compiled += 1;
    else counts.notCompiled.push(`${name} (${compiled.explain().why ?? compiled.explain().runs})`);
  }
  return counts;
}

describe('the JSONata reference suite, compiled, as closures and interpreted', () => {
  describe('with the clock still', () => {
    comparedWithTheClockStill();
    it('gives the same value or error code all three ways for every case, and at least 98% take the compiled path', async () => {
      const counts = await runCases(untimed);
      // The share is printed for the bench notes and the issue (`npx vitest run engine/expressions/codegen-suite.test.ts`).
      process.stdout.write(`reference suite: ${counts.compiled} of ${counts.parsed} parsed cases took the compiled path\n${counts.notCompiled.map((line) => `  not compiled: ${line}`).join('\n')}\n`);
      expect(counts.parsed).toBeGreaterThan(1600);
      expect(counts.compiled / counts.parsed).toBeGreaterThanOrEqual(0.98);
    }, 300_000);
  });

  it('gives the same error for the cases that run until their time limit', async () => {
    const counts = await runCases(timed);
    expect(counts.parsed).toBe(timed.length);
  }, 60_000);
});
