import { describe, expect, it } from 'vitest';
import { OperationFailure } from '../errors';
import { parseCsv, type CsvOptions } from './parse-csv';
import { FileProblems } from './problems';

const DEFAULTS: CsvOptions = {
  delimiter: 'auto', quote: '"', escape: '"', header: true, trim: false, skipEmptyLines: true, allowRaggedRows: false, relaxQuotes: false, maxRecordChars: 65536,
};

function read(text: string, options: Partial<CsvOptions> = {}) {
  const problems = new FileProblems();
  const table = parseCsv(text, { ...DEFAULTS, ...options }, problems);
  return { table, problems: problems.list().map((problem) => problem.message) };
}

function fatal(text: string, options: Partial<CsvOptions> = {}): string {
  try {
    read(text, options);
  } catch (error) {
    if (error instanceof OperationFailure) return error.problems[0].message;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('parseCsv options', () => {
  it('detects , ; and tab, and uses a declared delimiter as given', () => {
    expect(read('a,b\n1,2').table.records).toEqual([['1', '2']]);
    expect(read('a;b;"c,d"\n1;2;3').table.columns).toEqual(['a', 'b', 'c,d']);
    expect(read('a\tb\n1\t2').table.records).toEqual([['1', '2']]);
    expect(read('a|b\n1|2', { delimiter: '|' }).table.records).toEqual([['1', '2']]);
    expect(read('a;b\n1;2', { delimiter: ',' }).table.columns).toEqual(['a;b']);
  });

  it('keeps delimiters, quotes and line breaks inside quoted fields', () => {
    const { table } = read('name;note\n"Screw; M4";"say ""hi""\nnext line"\n');
    expect(table.records).toEqual([['Screw; M4', 'say "hi"\nnext line']]);
  });

  it('honours another quote and escape character, or no quoting at all', () => {
    expect(read("a,b\n'x,y',2", { quote: "'", escape: "'" }).table.records).toEqual([['x,y', '2']]);
    expect(read('a,b\n"x\\"y",2', { escape: '\\' }).table.records).toEqual([['x"y', '2']]);
    expect(read('a;b\n"x;y', { quote: '', delimiter: ';' }).table.records).toEqual([['"x', 'y']]);
  });

  it('accepts quotes inside unquoted fields as text when relaxQuotes is set', () => {
    expect(read('a,b\n1,12"5\n', { relaxQuotes: true }).table.records).toEqual([['1', '12"5']]);
  });

  it('takes column names from the mapping when the file has no header row', () => {
    const { table } = read('1;2\n3;4', { header: false, names: ['x', 'y'] });
    expect(table.columns).toEqual(['x', 'y']);
    expect(table.records).toEqual([['1', '2'], ['3', '4']]);
    expect(table.rowOf(1)).toBe(2);
  });

  it('skips comment lines (a comment character inside a field is text) and empty lines', () => {
    const { table } = read('# export of 2026-01-01\na;b\n\nSize #4;2\n# end\n', { comment: '#' });
    expect(table.records).toEqual([['Size #4', '2']]);
    expect(table.rowOf(0)).toBe(4);
  });

  it('trims fields on request', () => {
    expect(read('a , b\n 1 ,  2 ', { trim: true }).table).toMatchObject({ columns: ['a', 'b'], records: [['1', '2']] });
    expect(read('a,b\n 1 ,2').table.records).toEqual([[' 1 ', '2']]);
  });

  it('can keep empty lines, which are then rows of one empty cell', () => {
    const { problems } = read('a,b\n1,2\n\n3,4', { skipEmptyLines: false });
    expect(problems).toEqual(['row 3: has 1 cell(s) but the header names 2 column(s)']);
  });

  it('reports every ragged row with its row number, or accepts them when allowed', () => {
    const { problems, table } = read('a;b;c\n1;2;3\n4;5\n6;7;8;9\n');
    expect(problems).toEqual(['row 3: has 2 cell(s) but the header names 3 column(s)', 'row 4: has 4 cell(s) but the header names 3 column(s)']);
    expect([...table.ragged]).toEqual([1, 2]);
    expect(read('a;b;c\n4;5\n', { allowRaggedRows: true }).problems).toEqual([]);
  });

  it('counts rows as file lines: a multi-line record moves the rows after it', () => {
    const { table } = read('a,b\n"x\ny",1\n\nz,2\n');
    expect([table.rowOf(0), table.rowOf(1)]).toEqual([2, 5]);
  });

  it('reports a column name used twice in the header', () => {
    expect(read('qty;item;qty;\n1;2;3;\n').problems).toEqual(['row 1: the column name "qty" appears twice (columns 1 and 3)']);
  });

  it('gives an empty table for an empty file and a header alone', () => {
    expect(read('').table.records).toEqual([]);
    expect(read('a;b\r\n').table).toMatchObject({ columns: ['a', 'b'], records: [] });
  });

  it('refuses an unclosed quote, text after a closing quote and an oversized record, with the row', () => {
    expect(fatal('a,b\n1,2\n"x,y\n3,4\n')).toBe('row 3: a quoted field is never closed (a " is missing); the file ends inside it');
    expect(fatal('a,b\n"x"y,2\n')).toMatch(/^row 2: text follows the closing quote/);
    expect(fatal('a,b\n1,12"5\n')).toMatch(/^row 2: a quote character appears inside a field/);
    expect(fatal('a,b\n1,2\n1234567890123456789012345,2\n', { maxRecordChars: 16 })).toBe('row 3: one record is longer than 16 characters (file.maxRecordChars); is a quote left open?');
  });
});
