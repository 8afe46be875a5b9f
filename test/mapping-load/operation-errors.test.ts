/**
 * Operations whose settings do not fit their route: static answers against the contract, modes that
 * exclude each other, duplicate call names, and several mistakes reported in one pass.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatIssue, MappingLoadError } from '../../engine/errors';
import { checkMappingFile, loadMapping } from '../../engine/mapping/load';
import { expectOnlyError, HEADER, yaml } from '../support/mapping-issues';

const call = ['    calls:', '      - name: forward', '        method: POST', '        path: /events'];

describe('static answers are checked against the contract (STATIC_DATA_INVALID)', () => {
  it('an export column without header is refused at that column', () => {
    const text = yaml(`${HEADER}operations:`, '  GetExportColumns:', '    static:', '      - key: route', '        header: Route', '      - key: priority');
    expectOnlyError(text, { code: 'STATIC_DATA_INVALID', line: 10, col: 9, mentions: ['GetExportColumns', '/1/header'] });
  });

  it('a label that is not text is refused', () => {
    const text = yaml(`${HEADER}operations:`, '  GetExternalIndexableValueLabel:', '    static:', '      label: 42');
    expectOnlyError(text, { code: 'STATIC_DATA_INVALID', line: 8, col: 14, mentions: ['/label'] });
  });
});

describe('modes that do not fit the route', () => {
  it('acknowledge on a data route', () => {
    expectOnlyError(`${HEADER}operations:\n  GetItem:\n    acknowledge: true\n`, { code: 'MODE_NOT_FOR_ROUTE', line: 7, col: 5, mentions: ['acknowledge', 'GetItem'] });
  });

  it('output on an event route, at the output', () => {
    const text = yaml(`${HEADER}operations:`, '  CancelPutWallItem:', ...call, '    output: input');
    expectOnlyError(text, { code: 'MODE_NOT_FOR_ROUTE', line: 11, col: 13, mentions: ['CancelPutWallItem', 'output'] });
  });

  it('static on an event route', () => {
    expectOnlyError(`${HEADER}operations:\n  AttachWorkOrder:\n    static: {}\n`, { code: 'MODE_NOT_FOR_ROUTE', line: 7, col: 5, mentions: ['AttachWorkOrder', 'acknowledge'] });
  });

  it('an event route without calls', () => {
    expectOnlyError(`${HEADER}operations:\n  CancelPutWallItem:\n    description: forward later\n`, { code: 'OPERATION_INCOMPLETE', line: 7, col: 5, mentions: ['calls', 'acknowledge: true'] });
  });

  it('a data route without output', () => {
    const text = yaml(`${HEADER}operations:`, '  GetItem:', ...call);
    expectOnlyError(text, { code: 'OPERATION_INCOMPLETE', line: 7, col: 5, mentions: ['GetItem', 'output'] });
  });

  it('static together with calls', () => {
    const text = yaml(`${HEADER}operations:`, '  GetExportColumns:', ...call, '    static: []');
    expectOnlyError(text, { code: 'MODES_MIXED', line: 7, col: 5, mentions: ['static', 'calls'] });
  });

  it('acknowledge together with calls', () => {
    const text = yaml(`${HEADER}operations:`, '  CancelPutWallItem:', ...call, '    acknowledge: true');
    expectOnlyError(text, { code: 'MODES_MIXED', line: 7, col: 5, mentions: ['acknowledge', 'calls'] });
  });
});

describe('calls', () => {
  it('two calls with one name are DUPLICATE_CALL_NAME at the second', () => {
    const text = yaml(`${HEADER}operations:`, '  CancelPutWallItem:', ...call, '      - name: forward', '        method: POST', '        path: /more');
    expectOnlyError(text, { code: 'DUPLICATE_CALL_NAME', line: 11, col: 15, mentions: ['"forward"'] });
  });
});

describe('several errors in one file', () => {
  const fixture = path.join(__dirname, 'fixtures', 'several-errors.yaml');

  it('are all reported, in file order, each with its position', () => {
    const { mapping, issues } = checkMappingFile(fixture, { displayName: 'several-errors.yaml' });
    expect(mapping).toBeUndefined();
    expect(issues.map(({ code, line, col }) => ({ code, line, col }))).toEqual([
      { code: 'UNSAFE_PATH', line: 11, col: 15 },
      { code: 'DUPLICATE_CALL_NAME', line: 18, col: 15 },
      { code: 'EXPRESSION_SYNTAX', line: 21, col: 31 }, // the last character: the expression ends too early
      { code: 'UNKNOWN_RESULT', line: 29, col: 17 },
    ]);
  });

  it('loadMapping throws one MappingLoadError listing every error as file:line:col', () => {
    let thrown: unknown;
    try {
      loadMapping(fixture, { displayName: 'several-errors.yaml' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(MappingLoadError);
    const error = thrown as MappingLoadError;
    expect(error.message).toContain('4 error(s)');
    for (const issue of error.issues) expect(error.message).toContain(formatIssue(issue));
    expect(error.message).toContain('several-errors.yaml:29:17  "ItemDoesNotExist" is not a result of GET /Items/IntegrateImage/{number}');
  });

  it('a file that cannot be read is FILE_UNREADABLE', () => {
    const { issues } = checkMappingFile(path.join(__dirname, 'fixtures', 'missing.yaml'), { displayName: 'missing.yaml' });
    expect(issues).toEqual([expect.objectContaining({ code: 'FILE_UNREADABLE', file: 'missing.yaml', line: 0, col: 0, severity: 'error' })]);
    expect(issues[0].message).toContain('ENOENT');
  });
});
