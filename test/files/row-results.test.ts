import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompiledExpression } from '../../engine/expressions/compile';
import type { Mapping } from '../../engine/mapping/model';
import { mappingFromText, startEngine, type RunningEngine } from '../support/engine';
import { base64, CSV } from './fixtures';

/**
 * A row expression's result is reused for rows equal on the columns it reads (files/row-results.ts):
 * the answer is the one every row evaluated on its own gives, each failing row still reports its own
 * row, and the expression runs once per distinct value.
 */

const MAPPING = `
version: 1
name: row-results
system: { baseUrl: "http://127.0.0.1:9" }
functions:
  unit: |
    function($code) { $enumValue('UnitOfMeasure', { "PCE": "Piece", "KG": "Kilogram", "L": "Liter", "XX": "NoSuchUnit" }.$lookup($, $code)) }
operations:
  ParseWorkOrderFile:
    file:
      csv:
        delimiter: ";"
        types: { qty: integer }
        workOrders:
          key: order
          fields: { number: order, dueDate: "'2026-01-01T00:00:00Z'" }
          requests:
            itemNumber: article
            requestedAmount: qty
            unitOfMeasure: $unit(unit)
            itemName: "article & ' x' & qty"
            lotNumber: "$substring(lot, 0, 3)"
`;

const UNITS = ['PCE', 'KG', 'PCE', 'L', 'KG'];
/** The contract's UnitOfMeasure numbers. */
const UNIT_NUMBERS: Record<string, number> = { PCE: 0, KG: 4, L: 7 };
const ROWS = 300;

function csvFile(badRows: readonly number[] = []): string {
  const lines = ['order;article;qty;unit;lot'];
  for (let index = 0; index < ROWS; index += 1) {
    const row = index + 2;
    lines.push(`O-${Math.floor(index / 10)};A-${index};${index % 7};${badRows.includes(row) ? 'XX' : UNITS[index % UNITS.length]};LOT-${index}`);
  }
  return lines.join('\n');
}

function requestExpression(mapping: Mapping, field: string): CompiledExpression {
  const operation = mapping.operations.get('ParseWorkOrderFile');
  if (operation?.mode !== 'file' || operation.csv?.build.kind !== 'workOrders') throw new Error('not a work order layout');
  const source = operation.csv.build.requests.find(([name]) => name === field)?.[1];
  if (source?.kind !== 'expression') throw new Error(`${field} is not an expression`);
  return source.expression;
}

const evaluations = (expression: CompiledExpression) => expression.stats.fast + expression.stats.fallback + expression.stats.interpreter;

let mapping: Mapping;
let engine: RunningEngine;
beforeAll(async () => {
  mapping = mappingFromText(MAPPING);
  engine = await startEngine(mapping);
});
afterAll(() => engine.close());

describe('row expressions over a file', () => {
  it('give every row the value it would get on its own, evaluating a reusable expression once per distinct value', async () => {
    const unit = requestExpression(mapping, 'unitOfMeasure');
    const name = requestExpression(mapping, 'itemName');
    const lot = requestExpression(mapping, 'lotNumber');
    const before = [unit, name, lot].map(evaluations);
    const { status, body } = await engine.post('/WorkOrders/File', { fileContent: base64(csvFile()), fileType: CSV });
    expect(status).toBe(200);
    const lines = (body.data as { requests: { itemNumber: string; itemName: string; unitOfMeasure?: number; lotNumber: string }[] }[]).flatMap((order) => order.requests);
    expect(lines).toHaveLength(ROWS);
    lines.forEach((line, index) => {
      expect(line.unitOfMeasure).toBe(UNIT_NUMBERS[UNITS[index % UNITS.length]]);
      expect(line.itemName).toBe(`A-${index} x${index % 7}`);
      expect(line.lotNumber).toBe('LOT');
    });
    const [unitRuns, nameRuns, lotRuns] = [unit, name, lot].map((expression, index) => evaluations(expression) - before[index]);
    expect(unitRuns).toBe(3); // PCE, KG and L
    expect(nameRuns).toBe(ROWS); // article differs on every row
    expect(lotRuns).toBe(ROWS); // $substring may take the whole row as its context: never reused
  });

  it('reports each failing row at its own row, never a result kept from another row', async () => {
    const { body } = await engine.post('/WorkOrders/File', { fileContent: base64(csvFile([5, 40, 41])), fileType: CSV });
    expect(body.isResultSuccess).toBe(false);
    const messages = (body.validationStatus ?? []).map((problem) => problem.message);
    expect(messages.filter((message) => message.includes('NoSuchUnit')).map((message) => /^row \d+/.exec(message)?.[0])).toEqual(['row 5', 'row 40', 'row 41']);
  });
});
