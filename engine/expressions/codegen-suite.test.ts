import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileExpression, DEFAULT_EXPRESSION_LIMITS, type CompiledExpression, type CompileOptions, type ExpressionLimits } from './compile';
import { comparedWithTheClockStill } from '../../test/support/jsonata-values';

/**
 * JSONata's own reference suite (test/fixtures/jsonata-suite.json, MIT, see its `licence`), run side by
 * side through the three ways an expression can run: compiled to one generated function, the closure
 * fast path, and the interpreter. Each case whose expression is in the fast path's subset (the fast
 * path's own check decides, case by case) must give the same value or the same error code all three ways.
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
  return { ...DEFAULT_EXPRESSION_LIMITS, ...(suiteCase.depth ? { maxDepth: suiteCase.depth } : {}), ...(suiteCase.timelimit ? { timeoutMs: suiteCase.timelimit } : {}) };
}

/** The value as JSON would carry it plus whether it is undefined, or the error's code. */
async function outcome(expression: CompiledExpression, suiteCase: SuiteCase): Promise<unknown> {
  try {
    const value = await expression.evaluate(structuredClone(inputOf(suiteCase)), structuredClone(suiteCase.bindings ?? {}));
    return value === undefined ? { undefined: true } : { value: JSON.parse(JSON.stringify(value)) as unknown, array: Array.isArray(value) };
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

comparedWithTheClockStill();

describe('the JSONata reference suite, compiled, as closures and interpreted', () => {
  it('gives the same value or error code all three ways for every case in the subset', async () => {
    const counts = { inSubset: 0, outside: 0, compiledAnswers: 0 };
    for (const suiteCase of suite.cases) {
      const compiled = compiledAs(suiteCase, {});
      if (!compiled?.fastPath) {
        counts.outside += 1;
        continue;
      }
      counts.inSubset += 1;
      const closures = compiledAs(suiteCase, { codegen: false }) as CompiledExpression;
      const interpreter = compiledAs(suiteCase, { fastPath: false }) as CompiledExpression;
      const name = `${suiteCase.group}/${suiteCase.case}: ${suiteCase.expr}`;
      const expected = await outcome(interpreter, suiteCase);
      expect({ name, compiled: await outcome(compiled, suiteCase) }).toEqual({ name, compiled: expected });
      expect({ name, closures: await outcome(closures, suiteCase) }).toEqual({ name, closures: expected });
      // An expression that called an async built-in ($contains, $split, ...) is the interpreter's from then on, both ways.
      const runs = [compiled.explain().runs, closures.explain().runs];
      expect([name, runs]).toEqual([name, runs[0] === 'interpreter' ? ['interpreter', 'interpreter'] : ['compiled', 'closures']]);
      counts.compiledAnswers += compiled.stats.fast;
    }
    // The fixture's groups are those with cases in the subset: most of its cases must run, most answered by generated code.
    expect(counts.inSubset).toBeGreaterThan(600);
    expect(counts.compiledAnswers).toBeGreaterThan(450);
    expect(counts.outside).toBeGreaterThan(0);
  }, 120_000);
});
