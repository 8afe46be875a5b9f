import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mappingFromText, startEngine, type RunningEngine } from '../support/engine';
import { base64, CSV, EXAMPLE_FILES, exampleMapping, JSON_FILE } from './fixtures';

/** Both file routes over HTTP through the engine's server: the example files, then every error class. */

const TEST_MAPPING = `
version: 1
name: file-test
system: { baseUrl: "http://127.0.0.1:9" }
operations:
  ParseWorkOrderFile:
    file:
      maxFileBytes: 4000
      maxProblems: 5
      csv:
        delimiter: ";"
        maxRecordChars: 200
        types: { qty: integer, due: date }
        workOrders:
          fields: { number: order, dueDate: due, description: "'Order ' & order & ' (' & $count($rows) & ' lines)'" }
          requests: { itemNumber: article, requestedAmount: qty, lotNumber: "$uppercase(lot)" }
      json:
        output: |
          orders.{ "number": no, "dueDate": $isoDateTime(due), "requests": [lines.{ "itemNumber": article, "requestedAmount": qty }] }
  ParseItemFile:
    file:
      csv:
        header: false
        names: [number, name, weight]
        types: { weight: decimal-comma }
        output: "$.{ 'number': number, 'name': name, 'weight': weight }"
`;

const readExample = (name: string) => fs.readFileSync(path.join(EXAMPLE_FILES, name));

let example: RunningEngine;
let engine: RunningEngine;
beforeAll(async () => {
  example = await startEngine(exampleMapping());
  engine = await startEngine(mappingFromText(TEST_MAPPING));
});
afterAll(async () => {
  await example.close();
  await engine.close();
});

const orders = (text: string | Buffer, fileType = CSV) => engine.post('/WorkOrders/File', { fileContent: base64(text), fileType });
const messages = (body: { validationStatus?: readonly { message: string }[] | null }) => (body.validationStatus ?? []).map((problem) => problem.message);

describe('the example files through the example mapping', () => {
  it('orders.csv: rows grouped into work orders in file order, quoted ; and line breaks kept', async () => {
    const { status, body } = await example.post('/WorkOrders/File', { fileContent: readExample('orders.csv').toString('base64'), fileType: CSV });
    expect(status).toBe(200);
    expect(body).toMatchObject({ isResultSuccess: true, result: 1, validationStatus: null });
    const data = body.data as { number: string; description: string; requests: { itemNumber: string; itemName: string; order: number }[] }[];
    expect(data.map((order) => order.number)).toEqual(['SO-1001', 'SO-1002']);
    expect(data[0].requests.map((line) => [line.itemNumber, line.order])).toEqual([['A-100', 10], ['A-200', 20], ['A-300', 30]]);
    expect(data[0]).toMatchObject({ dueDate: '2026-12-15T00:00:00Z', description: 'Müller GmbH', deliveryNumber: 'DN-501' });
    expect(data[0].requests[0]).toEqual({ itemNumber: 'A-100', itemName: 'Screw M4; zinc', requestedAmount: 120, unitOfMeasure: 0, lotNumber: 'L-77', order: 10 });
    expect(data[1]).toMatchObject({ description: 'Garten & Co. "Nord"', requests: [{ itemName: 'Potting soil\n40 l bag', unitOfMeasure: 4 }] });
  });

  it('orders.json', async () => {
    const { body } = await example.post('/WorkOrders/File', { fileContent: readExample('orders.json').toString('base64'), fileType: JSON_FILE });
    expect(body).toMatchObject({ isResultSuccess: true, result: 1 });
    expect(body.data).toEqual([
      { number: 'SO-2001', dueDate: '2026-12-20T00:00:00Z', description: 'Baumarkt Süd', requests: [{ itemNumber: 'A-100', requestedAmount: 40, unitOfMeasure: 0 }, { itemNumber: 'A-400', requestedAmount: 2, unitOfMeasure: 4 }] },
      { number: 'SO-2002', dueDate: '2026-12-21T00:00:00Z', description: 'Hof Meier', requests: [{ itemNumber: 'A-200', requestedAmount: 10, unitOfMeasure: 1 }] },
    ]);
  });

  it('items.csv (Windows-1252, comma, typed columns)', async () => {
    const { body } = await example.post('/Items/File', { fileContent: readExample('items.csv').toString('base64'), fileType: CSV });
    expect(body).toMatchObject({ isResultSuccess: true, result: 1 });
    expect(body.data).toEqual([
      { number: 'A-100', name: 'Screw M4 zinc', weight: 0.004, minimumStockQuantity: 1000, unitOfMeasure: 0, manufacturer: 'Würth' },
      { number: 'A-200', name: 'Cable 3x1.5, grey', weight: 0.12, minimumStockQuantity: 50, unitOfMeasure: 1, manufacturer: 'Lapp' },
      { number: 'A-400', name: 'Potting soil 40 l', weight: 12.5, minimumStockQuantity: 5, unitOfMeasure: 4 },
    ]);
  });

  it('items.json', async () => {
    const { body } = await example.post('/Items/File', { fileContent: readExample('items.json').toString('base64'), fileType: JSON_FILE });
    expect(body).toMatchObject({ isResultSuccess: true, result: 1 });
    expect((body.data as { number: string }[]).map((item) => item.number)).toEqual(['A-100', 'A-500']);
  });

  it('orders.csv read the same with a UTF-8 byte order mark and as UTF-16 LE and BE', async () => {
    const plain = readExample('orders.csv');
    const expected = (await example.post('/WorkOrders/File', { fileContent: plain.toString('base64'), fileType: CSV })).body.data;
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(plain.toString('utf8'), 'utf16le')]);
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(plain.toString('utf8'), 'utf16le').swap16()]);
    for (const bytes of [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), plain]), le, be]) {
      const { body } = await example.post('/WorkOrders/File', { fileContent: bytes.toString('base64'), fileType: CSV });
      expect(body.data).toEqual(expected);
    }
  });
});

describe('what the operator gets back', () => {
  it('FileNotSupported for a type the mapping does not declare', async () => {
    const { body } = await engine.post('/Items/File', { fileContent: base64('[]'), fileType: JSON_FILE });
    expect(body).toMatchObject({ isResultSuccess: false, result: 3, data: null });
    expect(messages(body)).toEqual(['this adapter does not accept JSON files here; it accepts CSV']);
  });

  it('InvalidInput for text that is not strict Base64', async () => {
    const { body } = await engine.post('/WorkOrders/File', { fileContent: 'b3JkZXI7ZHVl!', fileType: CSV });
    expect(body).toMatchObject({ isResultSuccess: false, result: 2 });
    expect(messages(body)).toEqual(['fileContent: is not valid Base64: character "!" at position 13 is not part of the Base64 alphabet']);
  });

  it('an empty file or a header alone is an empty list with success, for both types', async () => {
    for (const [route, fileType, content] of [['/WorkOrders/File', CSV, ''], ['/WorkOrders/File', CSV, 'order;due;article;qty;lot\r\n'], ['/WorkOrders/File', JSON_FILE, ' \n'], ['/Items/File', CSV, '']] as const) {
      const { body } = await engine.post(route, { fileContent: base64(content), fileType });
      expect(body).toMatchObject({ isResultSuccess: true, result: 1, data: [] });
    }
  });

  it('groups rows by order key in file order, header fields from the first row, JSONata fields per row and per order', async () => {
    const { body } = await orders('order;due;article;qty;lot\nB;2026-02-01;x;1;l1\nA;2026-01-01;y;2;\nB;2030-01-01;z;3;l3\n');
    expect(body.data).toEqual([
      { number: 'B', dueDate: '2026-02-01T00:00:00Z', description: 'Order B (2 lines)', requests: [{ itemNumber: 'x', requestedAmount: 1, lotNumber: 'L1' }, { itemNumber: 'z', requestedAmount: 3, lotNumber: 'L3' }] },
      { number: 'A', dueDate: '2026-01-01T00:00:00Z', description: 'Order A (1 lines)', requests: [{ itemNumber: 'y', requestedAmount: 2 }] },
    ]);
  });

  it('names row and column of a bad cell: row 17, column qty: "abc" is not a whole number', async () => {
    const lines = ['order;due;article;qty;lot', ...Array.from({ length: 15 }, (_, i) => `A;2026-01-01;x${i};${i + 1};`), 'A;2026-01-01;y;abc;'];
    const { body } = await orders(lines.join('\n'));
    expect(body).toMatchObject({ isResultSuccess: false, result: 2, data: null });
    expect(body.validationStatus).toEqual([{ path: 'row 17, column qty', message: 'row 17, column qty: "abc" is not a whole number' }]);
  });

  it('reports every problem of the file at once: cells, empty keys, contract fields, JSONata errors', async () => {
    const { body } = await orders('order;due;article;qty;lot\nA;2026-13-01;x;1;\n;2026-01-01;y;2;\nB;2026-01-01;;3;\nC;2026-01-01;z;4.5;\n');
    expect(messages(body)).toEqual([
      'row 5, column qty: "4.5" is not a whole number',
      'row 2, column due: "2026-13-01" is not a calendar date',
      'row 3, column order: the order key is empty; every row must say which work order it belongs to',
      'row 4, column article: itemNumber is required (the cell is empty)',
    ]);
  });

  it('caps the list and counts the rest', async () => {
    const lines = ['order;due;article;qty;lot', ...Array.from({ length: 8 }, (_, i) => `A;2026-01-01;x;q${i};`)];
    const list = messages((await orders(lines.join('\n'))).body);
    expect(list).toHaveLength(6);
    expect(list[4]).toBe('row 6, column qty: "q4" is not a whole number');
    expect(list[5]).toBe('… and 3 more problem(s) not listed; the first 5 are shown');
  });

  it('a file that cannot be parsed: unclosed quote, ragged rows, a missing column, a too long record', async () => {
    expect(messages((await orders('order;due;article;qty;lot\nA;2026-01-01;"x;1;\nB;2026-01-01;y;2;\n')).body)).toEqual([
      'row 2: a quoted field is never closed (a " is missing); the file ends inside it',
    ]);
    expect(messages((await orders('order;due;article;qty;lot\nA;2026-01-01;x;1\nA;2026-01-01;y;2;;\n')).body)).toEqual([
      'row 2: has 4 cell(s) but the header names 5 column(s)',
      'row 3: has 6 cell(s) but the header names 5 column(s)',
    ]);
    expect(messages((await orders('order;due;item;qty\nA;2026-01-01;x;1\n')).body)).toEqual([
      'row 1: the file has no column "article"; its columns are: "order", "due", "item", "qty"',
    ]);
    expect(messages((await orders(`order;due;article;qty;lot\nA;2026-01-01;${'x'.repeat(300)};1;\n`)).body)).toEqual([
      'row 2: one record is longer than 200 characters (file.maxRecordChars); is a quote left open?',
    ]);
  });

  it('refuses a file over the size limit with the limit in the message', async () => {
    const { body } = await orders(`order;due;article;qty;lot\n${'A;2026-01-01;x;1;\n'.repeat(300)}`);
    expect(messages(body)).toEqual(['fileContent: the file is 5426 bytes; this adapter accepts files up to 4000 bytes (file.maxFileBytes)']);
  });

  it('JSON: a cut-off file names line and column; contract problems name the JSON path', async () => {
    const truncated = await orders('{ "orders": [\n  { "no": "A", "due": "2026-01-01", "lines": [', JSON_FILE);
    expect(truncated.body).toMatchObject({ result: 2 });
    expect(messages(truncated.body)[0]).toMatch(/^line 2, column \d+: the JSON ends too early \(is the file cut off\?\)/);
    const broken = await orders('{ "orders": [\n  { "no": "A" "due": 1 } ] }', JSON_FILE);
    expect(messages(broken.body)[0]).toMatch(/^line 2, column 15: the file is not valid JSON/);
    const invalid = await orders(JSON.stringify({ orders: [{ no: 'A', due: '2026-01-01', lines: [{ article: 'x', qty: 'five' }, { qty: 2 }] }] }), JSON_FILE);
    expect(messages(invalid.body)).toEqual([
      '$[0].requests[0].requestedAmount: must be integer',
      '$[0].requests[1].itemNumber: is required',
    ]);
  });

  it('CSV without a header row through a JSONata output over the rows', async () => {
    const { body } = await engine.post('/Items/File', { fileContent: base64('A-1,Screw,"1.234,5"\nA-2,Nut,\n'), fileType: CSV });
    expect(body).toMatchObject({ isResultSuccess: true, result: 1 });
    expect(body.data).toEqual([{ number: 'A-1', name: 'Screw', weight: 1234.5 }, { number: 'A-2', name: 'Nut' }]);
    const bad = await engine.post('/Items/File', { fileContent: base64('A-1,Screw,heavy\n'), fileType: CSV });
    expect(messages(bad.body)).toEqual(['row 1, column weight: "heavy" is not a number with a decimal comma (write it like 1.234,5)']);
  });
});
