import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeText } from './decode-text';
import { parseCsv, wholeText } from './parse-csv';
import { FileProblems } from './problems';

/**
 * The published edge cases of csv-spectrum (quotes, commas and newlines in fields, CRLF, UTF-8, empty
 * fields), read through the engine's decoding and CSV step with the default layout settings.
 */
const SPECTRUM = path.dirname(require.resolve('csv-spectrum/package.json'));
const cases = fs.readdirSync(path.join(SPECTRUM, 'csvs')).filter((name) => name.endsWith('.csv')).map((name) => name.replace(/\.csv$/, ''));

describe('csv-spectrum', () => {
  it('has its cases installed', () => {
    expect(cases.length).toBeGreaterThanOrEqual(12);
  });

  async function rowsOf(name: string, relaxQuotes: boolean): Promise<Record<string, unknown>[]> {
    const bytes = fs.readFileSync(path.join(SPECTRUM, 'csvs', `${name}.csv`));
    const problems = new FileProblems();
    const table = await parseCsv(wholeText(decodeText(bytes, 'auto')), {
      delimiter: 'auto', quote: '"', escape: '"', header: true, trim: false, skipEmptyLines: true, allowRaggedRows: false, relaxQuotes, maxRecordChars: 65536,
    }, problems);
    expect(problems.list()).toEqual([]);
    return table.records.map((record) => Object.fromEntries(table.columns.map((column, index) => [column, record[index]])));
  }
  const expectedOf = (name: string) => JSON.parse(fs.readFileSync(path.join(SPECTRUM, 'json', `${name}.json`), 'utf8'));

  it.each(cases.filter((name) => name !== 'location_coordinates'))('%s', async (name) => {
    expect(await rowsOf(name, false)).toEqual(expectedOf(name));
  });

  // Quotes inside an unquoted field (37°36'37.8"N) need relaxQuotes. The package's expected JSON also
  // has a different phone number than its own CSV (2095257564); every other cell must match.
  it('location_coordinates (relaxQuotes)', async () => {
    const [row] = await rowsOf('location_coordinates', true);
    const expected = expectedOf('location_coordinates');
    expect(row['Contact Phone Number']).toBe('2095257564');
    expect({ ...row, 'Contact Phone Number': expected['Contact Phone Number'] }).toEqual(expected);
  });
});
