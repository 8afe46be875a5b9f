import { describe, expect, it } from 'vitest';
import { checkMappingText } from '../../engine/mapping/load';
import { exampleMapping } from './fixtures';

/** Loader checks of the file: block: each refusal names the line and column of the offending setting. */
function issuesOf(operations: string): string[] {
  const text = `version: 1\nname: t\nsystem:\n  baseUrl: http://erp.test\noperations:\n${operations}`;
  const result = checkMappingText(text, 'm.yaml', {});
  return result.issues.filter((issue) => issue.severity === 'error').map((issue) => `${issue.line}:${issue.col} ${issue.code} ${issue.message}`);
}

const ORDERS = `
        workOrders:
          fields: { number: orderNo, dueDate: due }
          requests: { itemNumber: article, requestedAmount: qty }`;

describe('file: block in the mapping', () => {
  it('loads the example mapping with both file routes in file mode', () => {
    const mapping = exampleMapping();
    for (const id of ['ParseWorkOrderFile', 'ParseItemFile']) {
      const operation = mapping.operations.get(id);
      expect(operation?.mode).toBe('file');
      expect(operation?.mode === 'file' && Boolean(operation.csv && operation.json)).toBe(true);
    }
  });

  it('reads bare names as columns, literals as constants and anything else as JSONata', () => {
    const text = `version: 1\nname: t\nsystem: { baseUrl: http://erp.test }\noperations:\n  ParseWorkOrderFile:\n    file:\n      csv:\n        workOrders:\n          fields: { number: "\`Order No\`", dueDate: "$now()", workOrderTypeName: "'B2B'" }\n          requests: { itemNumber: article, requestedAmount: 1 }\n`;
    const operation = checkMappingText(text, 'm.yaml', {}).mapping?.operations.get('ParseWorkOrderFile');
    if (operation?.mode !== 'file' || operation.csv?.build.kind !== 'workOrders') throw new Error('not a work order layout');
    const { build } = operation.csv;
    expect(build.fields.map(([name, source]) => [name, source.kind])).toEqual([['number', 'column'], ['dueDate', 'expression'], ['workOrderTypeName', 'expression']]);
    expect(build.key).toMatchObject({ kind: 'column', column: 'Order No' });
    expect(build.requests[1][1]).toMatchObject({ kind: 'constant', value: 1 });
  });

  it('refuses file: on a route that is not a file route', () => {
    expect(issuesOf(`  GetItem:\n    file:\n      json: { output: $ }\n`)).toEqual([
      '7:5 MODE_NOT_FOR_ROUTE "file" is only for ParseWorkOrderFile and ParseItemFile (uploaded files); GetItem cannot use it',
    ]);
  });

  it('refuses file: together with calls, and a file block without csv or json', () => {
    expect(issuesOf(`  ParseItemFile:\n    file:\n      json: { output: $ }\n    output: $\n`)[0]).toMatch(/^7:5 MODES_MIXED ParseItemFile has "file" together with output/);
    expect(issuesOf(`  ParseItemFile:\n    file:\n      maxProblems: 10\n`)).toEqual(['8:7 FILE_LAYOUT file must declare the accepted file types: a csv block, a json block, or both']);
  });

  it('refuses a layout for the other route, several layouts, or none', () => {
    expect(issuesOf(`  ParseItemFile:\n    file:\n      csv:${ORDERS}\n`)).toEqual([
      '9:9 FILE_LAYOUT "workOrders" builds work orders, but ParseItemFile answers items; use "items"',
    ]);
    expect(issuesOf(`  ParseWorkOrderFile:\n    file:\n      csv:${ORDERS}\n        output: $\n`)[0]).toMatch(/^9:9 FILE_LAYOUT csv has workOrders and output; use exactly one/);
    expect(issuesOf(`  ParseWorkOrderFile:\n    file:\n      csv:\n        trim: true\n`)[0]).toMatch(/^9:9 FILE_LAYOUT csv must say how rows become work orders: add "workOrders"/);
  });

  it('refuses unknown and missing contract fields with a hint', () => {
    const issues = issuesOf(`  ParseWorkOrderFile:\n    file:\n      csv:\n        workOrders:\n          fields: { number: a, dueDate: b }\n          requests: { itemNumbr: c, requestedAmount: d }\n`);
    expect(issues).toContainEqual(expect.stringMatching(/^11:23 UNKNOWN_SETTING unknown setting "itemNumbr" in operations.ParseWorkOrderFile.file.csv.workOrders.requests; did you mean "itemNumber"\?/));
    // A misspelt required field is one mistake: reported at the misspelling, not also as missing (issue 17).
    expect(issues).not.toContainEqual(expect.stringMatching(/MISSING_SETTING .*"itemNumber"/));
  });

  it('refuses unknown column types and bad CSV settings', () => {
    expect(issuesOf(`  ParseWorkOrderFile:\n    file:\n      csv:\n        types: { qty: float }${ORDERS}\n`)[0]).toMatch(/^9:23 VALUE_NOT_ALLOWED operations.ParseWorkOrderFile.file.csv.types.qty must be one of: text, integer/);
    expect(issuesOf(`  ParseWorkOrderFile:\n    file:\n      csv:\n        delimiter: ";;"${ORDERS}\n`)).toEqual([
      '9:20 VALUE_NOT_ALLOWED delimiter ";;" must be one character (write "\\t" in double quotes for tab) or auto',
    ]);
    expect(issuesOf(`  ParseWorkOrderFile:\n    file:\n      csv:\n        encoding: latin1${ORDERS}\n`)[0]).toMatch(/^9:19 VALUE_NOT_ALLOWED .*encoding must be one of: auto, utf-8, utf-16, windows-1252/);
  });

  it('needs names without a header row, refuses names with one, and checks fields and types against names', () => {
    expect(issuesOf(`  ParseWorkOrderFile:\n    file:\n      csv:\n        header: false${ORDERS}\n`)).toEqual([
      '9:17 SETTINGS_DISAGREE header: false means the file has no header row, so csv.names must list the column names',
    ]);
    expect(issuesOf(`  ParseWorkOrderFile:\n    file:\n      csv:\n        names: [a]${ORDERS}\n`)[0]).toMatch(/^9:9 SETTINGS_DISAGREE csv.names is for files without a header row/);
    const issues = issuesOf(`  ParseWorkOrderFile:\n    file:\n      csv:\n        header: false\n        names: [orderNo, due, article]\n        types: { qty: integer }${ORDERS}\n`);
    expect(issues).toEqual([
      '11:18 UNKNOWN_COLUMN types names column "qty", which is not in csv.names (orderNo, due, article)',
      '14:61 UNKNOWN_COLUMN "qty" is not one of the column names given in csv.names (orderNo, due, article)',
    ]);
  });

  it('reports a JSONata syntax error inside a field at its line and column', () => {
    expect(issuesOf(`  ParseWorkOrderFile:\n    file:\n      csv:\n        workOrders:\n          fields: { number: a, dueDate: "$x(" }\n          requests: { itemNumber: c, requestedAmount: d }\n`)[0]).toMatch(/^10:44 EXPRESSION_SYNTAX JSONata expression does not compile/);
  });
});
