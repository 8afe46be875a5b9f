import { describe, expect, it } from 'vitest';
import { OperationFailure } from '../errors';
import { parseCsv, wholeText, type CsvOptions, type CsvText } from './parse-csv';
import { FileProblems } from './problems';

const DEFAULTS: CsvOptions = {
  delimiter: 'auto', quote: '"', escape: '"', header: true, trim: false, skipEmptyLines: true, allowRaggedRows: false, relaxQuotes: false, maxRecordChars: 65536,
};

async function read(text: string | CsvText, options: Partial<CsvOptions> = {}) {
  const problems = new FileProblems();
  const table = await parseCsv(typeof text === 'string' ? wholeText(text) : text, { ...DEFAULTS, ...options }, problems);
  return { table, problems: problems.list().map((problem) => problem.message) };
}

async function fatal(text: string | CsvText, options: Partial<CsvOptions> = {}): Promise<string> {
  try {
    await read(text, options);
  } catch (error) {
    if (error instanceof OperationFailure) return error.problems[0].message;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('parseCsv options', async () => {
  it('detects , ; and tab, and uses a declared delimiter as given', async () => {
    expect((await read('a,b\n1,2')).table.records).toEqual([['1', '2']]);
    expect((await read('a;b;"c,d"\n1;2;3')).table.columns).toEqual(['a', 'b', 'c,d']);
    expect((await read('a\tb\n1\t2')).table.records).toEqual([['1', '2']]);
    expect((await read('a|b\n1|2', { delimiter: '|' })).table.records).toEqual([['1', '2']]);
    expect((await read('a;b\n1;2', { delimiter: ',' })).table.columns).toEqual(['a;b']);
  });

  it('keeps delimiters, quotes and line breaks inside quoted fields', async () => {
    const { table } = (await read('name;note\n"Screw; M4";"say ""hi""\nnext line"\n'));
    expect(table.records).toEqual([['Screw; M4', 'say "hi"\nnext line']]);
  });

  it('honours another quote and escape character, or no quoting at all', async () => {
    expect((await read("a,b\n'x,y',2", { quote: "'", escape: "'" })).table.records).toEqual([['x,y', '2']]);
    expect((await read('a,b\n"x\\"y",2', { escape: '\\' })).table.records).toEqual([['x"y', '2']]);
    expect((await read('a;b\n"x;y', { quote: '', delimiter: ';' })).table.records).toEqual([['"x', 'y']]);
  });

  it('accepts quotes inside unquoted fields as text when relaxQuotes is set', async () => {
    expect((await read('a,b\n1,12"5\n', { relaxQuotes: true })).table.records).toEqual([['1', '12"5']]);
  });

  it('takes column names from the mapping when the file has no header row', async () => {
    const { table } = (await read('1;2\n3;4', { header: false, names: ['x', 'y'] }));
    expect(table.columns).toEqual(['x', 'y']);
    expect(table.records).toEqual([['1', '2'], ['3', '4']]);
    expect(table.rowOf(1)).toBe(2);
  });

  it('skips comment lines (a comment character inside a field is text) and empty lines', async () => {
    const { table } = (await read('# export of 2026-01-01\na;b\n\nSize #4;2\n# end\n', { comment: '#' }));
    expect(table.records).toEqual([['Size #4', '2']]);
    expect(table.rowOf(0)).toBe(4);
  });

  it('trims fields on request', async () => {
    expect((await read('a , b\n 1 ,  2 ', { trim: true })).table).toMatchObject({ columns: ['a', 'b'], records: [['1', '2']] });
    expect((await read('a,b\n 1 ,2')).table.records).toEqual([[' 1 ', '2']]);
  });

  it('can keep empty lines, which are then rows of one empty cell', async () => {
    const { problems } = (await read('a,b\n1,2\n\n3,4', { skipEmptyLines: false }));
    expect(problems).toEqual(['row 3: has 1 cell(s) but the header names 2 column(s)']);
  });

  it('reports every ragged row with its row number, or accepts them when allowed', async () => {
    const { problems, table } = (await read('a;b;c\n1;2;3\n4;5\n6;7;8;9\n'));
    expect(problems).toEqual(['row 3: has 2 cell(s) but the header names 3 column(s)', 'row 4: has 4 cell(s) but the header names 3 column(s)']);
    expect([...table.ragged]).toEqual([1, 2]);
    expect((await read('a;b;c\n4;5\n', { allowRaggedRows: true })).problems).toEqual([]);
  });

  it('counts rows as file lines: a multi-line record moves the rows after it', async () => {
    const { table } = (await read('a,b\n"x\ny",1\n\nz,2\n'));
    expect([table.rowOf(0), table.rowOf(1)]).toEqual([2, 5]);
  });

  it('reports a column name used twice in the header', async () => {
    expect((await read('qty;item;qty;\n1;2;3;\n')).problems).toEqual(['row 1: the column name "qty" appears twice (columns 1 and 3)']);
  });

  it('reads a text that arrives in pieces as if it were whole: split lines, quotes and line ends', async () => {
    const text = '# list\r\nname;note\r\n"Screw; M4";"say ""hi""\r\nnext line"\r\n\r\nNut;"x"\r\n';
    const inPieces = (size: number): CsvText => ({
      async *pieces() {
        for (let start = 0; start < text.length; start += size) yield text.slice(start, start + size);
      },
      whole: () => text,
    });
    const whole = await read(text, { comment: '#' });
    for (const size of [1, 2, 3, 7]) {
      const pieces = await read(inPieces(size), { comment: '#' });
      expect(pieces.table.columns).toEqual(whole.table.columns);
      expect(pieces.table.records).toEqual(whole.table.records);
      expect(pieces.table.rowOf(1)).toBe(whole.table.rowOf(1));
    }
    expect(whole.table.records).toEqual([['Screw; M4', 'say "hi"\r\nnext line'], ['Nut', 'x']]);
    const broken = 'a,b\n1,2\n"x,y\n3,4\n';
    expect(await fatal({ async *pieces() { for (const char of broken) yield char; }, whole: () => broken })).toBe(await fatal(broken));
  });

  it('gives an empty table for an empty file and a header alone', async () => {
    expect((await read('')).table.records).toEqual([]);
    expect((await read('a;b\r\n')).table).toMatchObject({ columns: ['a', 'b'], records: [] });
  });

  it('refuses an unclosed quote, text after a closing quote and an oversized record, with the row', async () => {
    expect(await fatal('a,b\n1,2\n"x,y\n3,4\n')).toBe('row 3: a quoted field is never closed (a " is missing); the file ends inside it');
    expect(await fatal('a,b\n"x"y,2\n')).toMatch(/^row 2: text follows the closing quote/);
    expect(await fatal('a,b\n1,12"5\n')).toMatch(/^row 2: a quote character appears inside a field/);
    expect(await fatal('a,b\n1,2\n1234567890123456789012345,2\n', { maxRecordChars: 16 })).toBe('row 3: one record is longer than 16 characters (file.maxRecordChars); is a quote left open?');
  });
});
