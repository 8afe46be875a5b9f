/**
 * Issue 15: a mistaken or hostile expression cannot freeze the engine for every customer. Every case of
 * corpus.yaml is either refused when its mapping loads, or runs as a real request that answers (or
 * fails with OperationFailed) within the time limit plus a margin, while a cheap request sent over and
 * over meanwhile keeps being answered. The bounds are generous: they tell a frozen event loop (the whole
 * limit or more) from a busy one (tens of milliseconds), not fast from slow; the cheap request's
 * latencies are printed per case at the end (`npx vitest run test/hostile-expressions` shows them).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { checkMappingText } from '../../engine/mapping/load';
import { startEngine, type RunningEngine } from '../support/engine';
import { CORPUS, expand, mappingFor, TIMEOUT_MS } from './corpus';

/** The hostile request's answer: the limit, plus a margin for a busy test machine. */
const ANSWER_WITHIN_MS = TIMEOUT_MS + 1500;
/** What a cheap request may wait while a runaway runs: less than the runaway's whole limit, which a frozen loop would make it wait. */
const CHEAP_WITHIN_MS = TIMEOUT_MS;
const CHEAP_PATH = '/WorkOrders/WorkOrderExternalIndexableValueLabel';

interface CheapLatencies {
  readonly waits: readonly number[];
  readonly longest: number;
}

/** Calls the cheap route until `done` settles; how long each call waited. */
async function cheapWhile(engine: RunningEngine, done: Promise<unknown>): Promise<CheapLatencies> {
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  const waits: number[] = [];
  while (!finished) {
    const started = performance.now();
    const reply = await engine.get(CHEAP_PATH);
    waits.push(performance.now() - started);
    expect(reply.body.data).toEqual({ label: 'ERP order id' });
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { waits, longest: Math.max(...waits) };
}

/** The figures of each case run at request time, printed at the end. */
const measured: string[] = [];

function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];
}

describe('hostile expressions (test/hostile-expressions/corpus.yaml)', () => {
  afterAll(() => {
    if (measured.length > 0) console.info(`hostile answered in ms | cheap requests: calls, median, p90, longest ms | case\n${measured.join('\n')}`);
  });

  it('the corpus covers each kind of attack the issue names', () => {
    const names = CORPUS.map((entry) => entry.name).join('\n');
    for (const kind of [/regular|quantifier|alternation/, /backreference/, /lookahead|lookbehind/, /\$pad/, /\$join/, /& in a loop/, /\$string/, /recursion/, /mapping's functions/, /literal/, /order-by/, /\$shuffle/, /\$zip/, /\$reverse/, /\$clone/, /& with a list/, /\$length/, /range at the sequence limit/, /\$split/, /\$replace/, /\$match/, /\$trim/, /\$keys/, /\$merge/, /\$eval of/]) {
      expect(names).toMatch(kind);
    }
    expect(CORPUS.filter((entry) => entry.expect.load).length).toBeGreaterThan(3);
  });

  for (const entry of CORPUS.filter((candidate) => candidate.expect.load)) {
    it(`refused at load: ${entry.name}`, () => {
      const { text, expressionLine } = mappingFor(entry.expression);
      const result = checkMappingText(text, 'hostile.yaml', {});
      expect(result.mapping).toBeUndefined();
      const errors = result.issues.filter((issue) => issue.severity === 'error');
      expect(errors.map((issue) => issue.code)).toEqual([entry.expect.load]);
      // Inside the expression; a parser that ran out of stack has no position and names the expression's start.
      expect([expressionLine - 1, expressionLine]).toContain(errors[0].line);
      expect(errors[0].col).toBeGreaterThan(6);
      if (entry.expect.load === 'REGEX_UNSUPPORTED') {
        // The column is the literal's opening slash.
        const written = expand(entry.expression);
        expect(errors[0].line).toBe(expressionLine);
        expect(errors[0].col).toBe(7 + written.indexOf('/'));
        expect(errors[0].message).toMatch(/linear time \(RE2\)/);
      }
    });
  }

  for (const entry of CORPUS.filter((candidate) => !candidate.expect.load)) {
    it(`bounded at request time: ${entry.name}`, async () => {
      const engine = await startEngine(mappingFor(entry.expression).text);
      try {
        const started = performance.now();
        const hostile = engine.get(`/Items/${encodeURIComponent(entry.number ?? 'c')}`);
        const cheap = await cheapWhile(engine, hostile);
        const reply = await hostile;
        const elapsed = performance.now() - started;
        measured.push(`${String(Math.round(elapsed)).padStart(5)} | ${String(cheap.waits.length).padStart(3)} ${[0.5, 0.9, 1].map((share) => String(Math.round(percentile(cheap.waits, share))).padStart(5)).join(' ')} | ${entry.name}`);
        expect(elapsed).toBeLessThan(ANSWER_WITHIN_MS);
        expect(cheap.longest).toBeLessThan(CHEAP_WITHIN_MS);
        const { fails, answers } = entry.expect;
        if (reply.body.isResultSuccess) {
          expect(answers, JSON.stringify(reply.body).slice(0, 300)).toBeDefined();
          expect((reply.body.data as { name?: string }).name).toBe(answers);
        } else {
          expect(fails, JSON.stringify(reply.body).slice(0, 300)).toBeDefined();
          expect(reply.body.result).toBe(0); // OperationFailed, GetItem's failure result
          const message = JSON.stringify(reply.body.validationStatus);
          expect(fails?.some((word) => message.includes(word)), message.slice(0, 300)).toBe(true);
        }
      } finally {
        await engine.close();
      }
    }, 20_000);
  }
});
