/**
 * Mappings made from one template repeat the same expressions, and the loader shares their parsed and
 * checked form (compile.ts, CHECKED_EXPRESSIONS). Each mapping must still report its problems at its own
 * file:line:col and run under its own limits, whichever of them was loaded first.
 */
import { describe, expect, it } from 'vitest';
import { checkMappingText } from '../../engine/mapping/load';
import type { MappingIssue } from '../../engine/errors';
import { HEADER, yaml } from '../support/mapping-issues';

const errorsOf = (issues: readonly MappingIssue[]) => issues.filter((issue) => issue.severity === 'error').map(({ file, line, col, code }) => ({ file, line, col, code }));

/** A mapping whose GetItem output is `output`, after `padding` blank lines and under `limits` (YAML lines). */
function mapping(output: string, padding: number, limits: readonly string[] = []): string {
  return yaml(`${HEADER}${limits.join('\n')}${limits.length > 0 ? '\n' : ''}${'\n'.repeat(padding)}operations:`, '  GetItem:', `    output: ${output}`);
}

function outputOf(text: string, file: string) {
  const { mapping: loaded, issues } = checkMappingText(text, file, {});
  const operation = loaded?.operations.get('GetItem');
  if (!operation || operation.mode !== 'flow' || !operation.output) throw new Error(`${file} did not load: ${JSON.stringify(issues)}`);
  return operation.output;
}

describe('an expression shared by several mappings', () => {
  it('an unknown function is reported in each mapping at its own file, line and column', () => {
    const expression = 'input.number & $frobnicate(input.number)';
    const first = checkMappingText(mapping(expression, 0), 'first.yaml', {});
    const second = checkMappingText(mapping(expression, 3), 'second.yaml', {});
    expect(errorsOf(first.issues)).toEqual([{ file: 'first.yaml', line: 7, col: 28, code: 'FUNCTION_UNKNOWN' }]);
    expect(errorsOf(second.issues)).toEqual([{ file: 'second.yaml', line: 10, col: 28, code: 'FUNCTION_UNKNOWN' }]);
  });

  it('a syntax error is reported in each mapping that has it', () => {
    const expression = 'input.number ]';
    expect(errorsOf(checkMappingText(mapping(expression, 0), 'first.yaml', {}).issues)).toEqual([{ file: 'first.yaml', line: 7, col: 26, code: 'EXPRESSION_SYNTAX' }]);
    expect(errorsOf(checkMappingText(mapping(expression, 2), 'second.yaml', {}).issues)).toEqual([{ file: 'second.yaml', line: 9, col: 26, code: 'EXPRESSION_SYNTAX' }]);
  });

  it('a check that depends on the limits runs with each mapping\'s own, after a mapping that passed it', () => {
    // 60 items: within the default depth limit (500), over a mapping's expressionMaxDepth of 50.
    const list = `'[${Array.from({ length: 60 }, (_, i) => i).join(',')}]'`;
    expect(errorsOf(checkMappingText(mapping(list, 0), 'roomy.yaml', {}).issues)).toEqual([]);
    const tight = checkMappingText(mapping(list, 0, ['limits:', '  expressionMaxDepth: 50']), 'tight.yaml', {});
    expect(errorsOf(tight.issues)).toEqual([{ file: 'tight.yaml', line: 9, col: 14, code: 'EXPRESSION_SYNTAX' }]);
    expect(tight.issues[0].message).toContain('expressionMaxDepth, 50');
    expect(errorsOf(checkMappingText(mapping(list, 1), 'roomy-again.yaml', {}).issues)).toEqual([]);
  });

  it('each mapping evaluates under its own depth limit and keeps its own counts', async () => {
    // Recursion 100 deep: fine under the default limit, over a limit of 50.
    const expression = "'( $down := function($n) { $n = 0 ? 0 : 1 + $down($n - 1) }; $down(100) )'";
    const roomy = outputOf(mapping(expression, 0), 'roomy.yaml');
    const tight = outputOf(mapping(expression, 0, ['limits:', '  expressionMaxDepth: 50']), 'tight.yaml');
    const again = outputOf(mapping(expression, 4), 'again.yaml');
    await expect(roomy.evaluate({})).resolves.toBe(100);
    await expect(tight.evaluate({})).rejects.toMatchObject({ code: 'D1011' });
    await expect(again.evaluate({})).resolves.toBe(100);
    expect(again.origin).toEqual({ file: 'again.yaml', line: 11, col: 14 });
    const counted = (stats: typeof roomy.stats) => stats.fast + stats.fallback + stats.interpreter;
    expect([counted(roomy.stats), counted(again.stats)]).toEqual([1, 1]);
  });
});
