import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { compileExpression, compileWithTree, ExpressionSyntaxError, JSONATA_BUILTINS } from './compile';

describe('compileExpression', () => {
  it('reports the offset of a syntax error inside the expression', () => {
    try {
      compileExpression('a.b + + ');
      expect.unreachable('should not compile');
    } catch (error) {
      expect(error).toBeInstanceOf(ExpressionSyntaxError);
      expect((error as ExpressionSyntaxError).code).toMatch(/^S0/);
    }
  });

  it("gives JSONata's parse tree of the text for the load checks, and keeps none of it in the compiled expression", async () => {
    const source = '{ "n": $count(lines[qty > 0]), "first": lines[0].sku }';
    const { compiled, tree } = compileWithTree(source, undefined, '$twice := function($x) { $x * 2 };');
    expect(tree).toEqual(jsonata(source).ast());
    // A tree kept its whole parser alive (~14 KB an expression): nothing reachable from the expression is one.
    expect(Object.values(compiled).some((value) => typeof value === 'object' && value !== null && 'type' in value)).toBe(false);
    await expect(compiled.evaluate({ lines: [{ sku: 'A', qty: 1 }, { sku: 'B', qty: 0 }] })).resolves.toEqual({ n: 1, first: 'A' });
    const plain = compileWithTree('lines.sku');
    expect([...(await plain.compiled.evaluate({ lines: [{ sku: 'A' }, { sku: 'B' }] })) as string[]]).toEqual(['A', 'B']);
  });

  it('stops a deep recursion with the depth limit', async () => {
    const deep = compileExpression('( $f := function($x) { $f($x) + 1 }; $f(1) )', { timeoutMs: 5000, maxDepth: 50, maxSequence: 1000 });
    await expect(deep.evaluate({})).rejects.toMatchObject({ code: 'D1011' });
  });

  it('stops an endless tail-recursive loop with the time limit instead of hanging', async () => {
    const endless = compileExpression('( $f := function($x) { $f($x) }; $f(1) )', { timeoutMs: 100, maxDepth: 50, maxSequence: 1000 });
    await expect(endless.evaluate({})).rejects.toMatchObject({ code: 'D1012' });
  });

  it('stops a sequence that grows past the limit', async () => {
    const big = compileExpression('[1..100000].($ * 2)', { timeoutMs: 5000, maxDepth: 500, maxSequence: 1000 });
    await expect(big.evaluate({})).rejects.toMatchObject({ code: 'D2015' });
  });

  it('keeps concurrent evaluations of one compiled expression apart', async () => {
    const expression = compileExpression('( $double := function($n) { $n * 2 }; $double(value) )');
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => expression.evaluate({ value: i })));
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i * 2));
  });

  it('makes mapping functions (the prelude) callable', async () => {
    const expression = compileExpression('$twice(3)', undefined, '$twice := function($n) { $n * 2 };');
    expect(await expression.evaluate({})).toBe(6);
  });

  it('lists only names that are JSONata built-ins', async () => {
    for (const name of JSONATA_BUILTINS) {
      expect(await jsonata(`$${name}`).evaluate({}), name).toHaveProperty('implementation');
    }
  });
});
