import { describe, expect, it } from 'vitest';
import { findRoute } from '../../engine/contract/routes';
import { createAnsweringClient } from '../../engine/testing/answers';
import { createMasker } from '../../engine/mapping/mask';
import { runCase } from '../../engine/testing/run-case';
import { EXPRESSION_LIMIT_BYTES } from '../../engine/journal/journal-entry';
import { head, mappingFromText } from '../support/engine';

/** Dry runs and the studio show each mapping expression with what it read and gave; served requests record none. */
const mapping = mappingFromText(head('http://erp.test/api') + `  GetItem:
    calls:
      - name: article
        method: GET
        path: /articles/{input.number}
      - name: stock
        method: GET
        path: /stock/{calls.article.body.no}
    output: '{ "number": calls.article.body.no }'
`);
const route = findRoute('GetItem')!;
const answers = () => ({ article: [{ headers: { 'set-cookie': 'sid=s3cret' }, body: { no: 'A-1', note: 'x'.repeat(5000) } }], stock: [{ body: { qty: 3 } }] });

describe('expression steps of a trace', () => {
  it('shows each expression with the parts of the document it read and the value it gave, cut and masked', async () => {
    const client = createAnsweringClient({ answers: answers() });
    const run = await runCase(mapping, route, { number: 'A-1' }, client, createMasker([]), { expressions: true });
    const expressions = run.steps.filter((step) => step.step === 'expression');
    expect(expressions.map((step) => [step.what, step.source])).toEqual([
      ['calls.article.path', 'input.number'],
      ['calls.stock.path', 'calls.article.body.no'],
      ['output', '{ "number": calls.article.body.no }'],
    ]);
    expect(expressions[0]).toMatchObject({ read: { input: { number: 'A-1' } }, gave: 'A-1' });
    // The second path read the call it names, not the input; the answer's cookie is masked; the answer
    // is over the limit, so what it read is kept as the start of its JSON, with a marker.
    const { read } = expressions[1] as { read: { truncated: string; start: string } };
    expect(read.truncated).toBe(`more than ${EXPRESSION_LIMIT_BYTES} characters of JSON; the first ${read.start.length} are kept`);
    expect(read.start).toMatch(/^\{"calls":\{"article":\{"status":200,"headers":\{"set-cookie":"\*\*\*"\}/);
    // The limit holds for the start as the entry writes it: a JSON string, its quotes escaped.
    expect(JSON.stringify(read.start).length - 2).toBeLessThanOrEqual(EXPRESSION_LIMIT_BYTES);
    expect(JSON.stringify(read.start).length - 2).toBeGreaterThan(EXPRESSION_LIMIT_BYTES - 2);
    expect(expressions[2]).toMatchObject({ gave: { number: 'A-1' } });
    expect(run.resultName).toBe('Succeed');
    expect(run.steps.map((step) => step.step)).toEqual(['expression', 'request', 'response', 'expression', 'request', 'response', 'expression', 'output', 'check']);
  });

  it('records none for a request that does not ask (the serving path)', async () => {
    const client = createAnsweringClient({ answers: answers() });
    const run = await runCase(mapping, route, { number: 'A-1' }, client, createMasker([]));
    expect(run.resultName).toBe('Succeed');
    expect(run.steps.map((step) => step.step)).toEqual(['request', 'response', 'request', 'response', 'output', 'check']);
  });
});
