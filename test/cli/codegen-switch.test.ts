import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exampleEnv } from '../../examples/example-env';
import { createMappingSource } from '../../engine/server/mapping-source';
import { whenFastFunctionsReady } from '../../engine/expressions/fast-path/runtime';
import { explainExpressions } from '../../engine/cli/dry-run-explain';
import { EXAMPLE, runCli, startServe, stoppedAfterEach } from './cli-process';

/**
 * How expressions run, as an operator switches and sees it: `dry-run --explain --json` and
 * `serve --no-codegen` (the guide's `dry-run --explain` example is a doctest, test/docs/doctests.test.ts).
 */
const { running } = stoppedAfterEach(afterEach);

describe('dry-run --explain', () => {
  it('with --json lists each expression that ran, compiled, with its code', async () => {
    const result = await runCli(['dry-run', EXAMPLE, 'GET /WorkOrders/Code', '--input', '{"Code": "SO-1001"}', '--example-erp', '--explain', '--json']);
    expect(result.code).toBe(0);
    const { expressions } = JSON.parse(result.stdout) as { expressions: { at: string; source: string; runs: string; code?: string }[] };
    expect(expressions.map((expression) => expression.source)).toEqual(['input.Code', 'response.status = 404', "response.body.state = 'BLOCKED'", '$workOrder(calls.order.body)']);
    for (const expression of expressions) {
      expect(expression.runs).toBe('compiled');
      expect(expression.code).toContain('function f1(input, frame, run)');
    }
  });
});

describe('--no-codegen', () => {
  it('reaches every expression of the mappings a source loads', async () => {
    expect(await whenFastFunctionsReady()).toBe(true);
    const env = exampleEnv('http://127.0.0.1:1');
    for (const [codegen, runs] of [[false, 'closures'], [true, 'compiled']] as const) {
      const [mapping] = (await createMappingSource([path.resolve(EXAMPLE)], env, { codegen }).load()).mappings;
      // Evaluate every expression of the mapping once, as a request would, then ask how each ran.
      const explained = explainExpressions(mapping);
      expect(explained).toEqual([]);
      await evaluateAll(mapping);
      const ran = explainExpressions(mapping).filter((expression) => expression.runs !== 'interpreter');
      expect(ran.length).toBeGreaterThan(40);
      expect([codegen, [...new Set(ran.map((expression) => expression.runs))]]).toEqual([codegen, [runs]]);
    }
  });

  it('serves the same answers as the compiled expressions', async () => {
    const answers: unknown[] = [];
    for (const flags of [[], ['--no-codegen']]) {
      const serving = await startServe([...flags, '--example-erp', 'mappings/example.yaml']);
      running.push(serving);
      const response = await fetch(`${serving.urls[0]}/WorkOrders`);
      answers.push(await response.json());
    }
    expect((answers[0] as { data?: unknown[] }).data?.length).toBeGreaterThan(3);
    expect(answers[1]).toEqual(answers[0]);
  });
});

/** Each compiled expression found in the mapping, evaluated once over an empty context. */
async function evaluateAll(mapping: object): Promise<void> {
  const seen = new Set<object>();
  const pending: Promise<unknown>[] = [];
  const walk = (value: unknown): void => {
    if (!value || typeof value !== 'object' || seen.has(value)) return;
    seen.add(value);
    const candidate = value as { evaluate?: unknown; explain?: unknown };
    if (typeof candidate.evaluate === 'function' && typeof candidate.explain === 'function') {
      pending.push((candidate.evaluate as (input: unknown) => Promise<unknown>)({}).catch(() => undefined));
      return;
    }
    if (value instanceof Map) for (const item of value.values()) walk(item);
    for (const key of Object.keys(value)) walk((value as Record<string, unknown>)[key]);
  };
  walk(mapping);
  await Promise.all(pending);
}
