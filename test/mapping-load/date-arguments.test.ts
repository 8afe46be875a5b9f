import { afterEach, describe, expect, it } from 'vitest';
import { head, startEngine, type RunningEngine } from '../support/engine';
import { errorsOf, expectOnlyError, HEADER, yaml } from '../support/mapping-issues';

/** GetItem answering without calls: its name is the date expression's result. */
const item = (name: string) => `${HEADER}${yaml(
  'operations:',
  '  GetItem:',
  `    output: '{ "number": input.number, "name": ${name} }'`,
)}`;

describe('$isoDateTime with a literal zone or format is checked when the mapping loads', () => {
  it('an unknown literal zone is TIME_ZONE_UNKNOWN at the literal', () => {
    const error = expectOnlyError(item("$isoDateTime(\"2026-12-01\", null, \"Europe/Atlantis\")"), { code: 'TIME_ZONE_UNKNOWN', line: 7, col: 81, mentions: ['Europe/Atlantis', 'IANA'] });
    expect(error.severity).toBe('error');
  });

  it('an unknown literal format is DATE_FORMAT_UNKNOWN at the literal', () => {
    expectOnlyError(item('$isoDateTime("1.12.26", "D.M.YY")'), { code: 'DATE_FORMAT_UNKNOWN', line: 7, col: 72, mentions: ['D.M.YY', 'DD.MM.YYYY'] });
  });

  it('known zones and formats load, also inside the mapping\'s functions', () => {
    expect(errorsOf(item('$isoDateTime("01.12.2026", "DD.MM.YYYY", "America/Chicago")'))).toEqual([]);
    const withFunction = `${HEADER}${yaml(
      'functions:',
      '  local: \'function($d) { $isoDateTime($d, null, "Mars/Olympus") }\'',
      'operations:',
      '  GetItem:',
      '    output: \'{ "number": input.number, "name": $local("2026-12-01") }\'',
    )}`;
    expectOnlyError(withFunction, { code: 'TIME_ZONE_UNKNOWN', line: 6, col: 49, mentions: ['Mars/Olympus'] });
  });
});

describe('a zone computed at run time', () => {
  let running: RunningEngine | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  it('is read per request; an unknown one fails that request with a clear message', async () => {
    running = await startEngine(`${head('http://127.0.0.1:9')}${yaml(
      '  GetItem:',
      '    output: \'{ "number": input.number, "name": $isoDateTime("2026-12-01 08:00", null, $replace(input.number, "_", "/")) }\'',
    )}`);
    expect(await running.call('GET', '/Items/Europe_Berlin')).toMatchObject({ isResultSuccess: true, data: { name: '2026-12-01T07:00:00Z' } });
    const failed = await running.call('GET', '/Items/Europe_Atlantis');
    expect(failed).toMatchObject({ isResultSuccess: false, result: 0 }); // OperationFailed
    expect(failed.validationStatus).toEqual([{ path: 'output', message: expect.stringContaining('unknown time zone "Europe/Atlantis"; give an IANA name') as unknown }]);
  });
});
