import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatIssue } from '../../engine/errors';
import { fixSpellings } from '../../engine/mapping/format/fix';
import { pageRootToResponse, applyInsertions } from '../../engine/mapping/format/respellings';
import { checkMappingText } from '../../engine/mapping/load';
import type { CallSpec } from '../../engine/mapping/model';
import { runCli, tempDir } from '../cli/cli-process';
import { errorsOf, expectOnlyError, HEADER, yaml } from '../support/mapping-issues';

const OLD = path.join(__dirname, 'old-spellings.yaml');
const oldText = fs.readFileSync(OLD, 'utf8');

function callOf(text: string, operation: string): CallSpec {
  const { mapping, issues } = checkMappingText(text, 'm.yaml', {});
  expect(mapping, issues.map(formatIssue).join('\n')).toBeDefined();
  const found = mapping!.operations.get(operation);
  if (found?.mode !== 'flow') throw new Error(`${operation} is not a flow`);
  return found.calls[0];
}

describe('old spellings', () => {
  it('still load, read as the current ones, with a warning at each that names the new spelling', () => {
    const { mapping, issues } = checkMappingText(oldText, 'old.yaml', {});
    expect(mapping).toBeDefined();
    const spelling = issues.filter((issue) => issue.code === 'OLD_SPELLING').map(formatIssue);
    expect(spelling).toEqual([
      expect.stringMatching(/^old\.yaml:14:18 {2}warning: operations\.GetWorkOrders\.calls\[0\]\.paginate\.items reads the page by its old name; write response\.body\.salesOrders/),
      expect.stringMatching(/^old\.yaml:15:20 {2}warning: .*paginate\.hasMore .*write \$\.response\.body\.page < response\.body\.totalPages/),
      expect.stringMatching(/^old\.yaml:22:18 {2}warning: operations\.GetItem\.calls\[0\]\.cache\.ttlSeconds is now spelt ttlMs \(write ttlMs: 300000\)/),
      expect.stringMatching(/^old\.yaml:31:11 {2}warning: operations\.ReportWorkOrderStatus\.calls\[0\]\.forEach\.concurrency is now spelt maxConcurrency/),
    ]);
    expect(callOf(oldText, 'GetItem').cache).toEqual({ ttlMs: 300_000, maxEntries: 50 });
    expect(callOf(oldText, 'ReportWorkOrderStatus').forEach).toMatchObject({ maxConcurrency: 3 });
    expect(callOf(oldText, 'GetWorkOrders').paginate?.items.source).toBe('response.body.salesOrders');
  });

  it('both spellings in one block is an error that says which to keep', () => {
    const text = yaml(`${HEADER}operations:`, '  GetItem:', '    calls:', '      - name: a', '        method: GET', '        path: /a', '        cache: { ttlSeconds: 1, ttlMs: 1000 }', '    output: calls.a.body');
    expectOnlyError(text, { code: 'OLD_AND_NEW_SPELLING', line: 11, col: 18, mentions: ['keep ttlMs'] });
  });

  it('pagination names at the root of an expression get response in front; names inside paths and predicates keep theirs', () => {
    const rewrite = (text: string) => applyInsertions(text, pageRootToResponse(text));
    expect(rewrite('body.items')).toBe('response.body.items');
    expect(rewrite('$count(body.items[status = "open"]) > 0 and headers.link')).toBe('$count(response.body.items[status = "open"]) > 0 and response.headers.link');
    expect(rewrite('body.page < body.totalPages ? body.next : null')).toBe('response.body.page < response.body.totalPages ? response.body.next : null');
    expect(rewrite('items.body')).toBe('items.body');
    expect(pageRootToResponse('response.body.items')).toEqual([]);
    expect(pageRootToResponse('body.(')).toEqual([]);
  });
});

describe('validate --fix', () => {
  it('rewrites the file to the current spellings, keeping comments, quotes and layout, and the result loads without warnings', () => {
    const { text, changes } = fixSpellings('old.yaml', oldText);
    expect(changes).toHaveLength(4);
    expect(text.split('\n').length).toBe(oldText.split('\n').length);
    expect(text).toContain('          items: response.body.salesOrders          # the page was once called body');
    expect(text).toContain('          hasMore: "$.response.body.page < response.body.totalPages"');
    expect(text).toContain('        cache: { ttlMs: 300000, maxEntries: 50 }   # five minutes');
    expect(text).toContain('          maxConcurrency: 3');
    expect(text).toContain('# A mapping written with the spellings of an earlier format version.');
    const { mapping, issues } = checkMappingText(text, 'fixed.yaml', {});
    expect(mapping).toBeDefined();
    expect(issues.filter((issue) => issue.code === 'OLD_SPELLING')).toEqual([]);
    // A second run has nothing left to do.
    expect(fixSpellings('fixed.yaml', text)).toEqual({ text, changes: [] });
  });

  it('is a flag of the validate command: it writes the file and says what it changed', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'customer.yaml');
    fs.writeFileSync(file, oldText);
    const result = await runCli(['validate', '--fix', file]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(':22:18  fixed: ttlSeconds → ttlMs');
    expect(result.stdout).toContain(':14:18  fixed: items now reads the page as response');
    expect(result.stdout).not.toContain('still loads');
    expect(fs.readFileSync(file, 'utf8')).toBe(fixSpellings('x', oldText).text);
  });
});

describe('the mode of an operation', () => {
  const call = ['    calls:', '      - name: a', '        method: GET', '        path: /a'];
  it('may be stated, and then must match the settings present', () => {
    const ok = yaml(`${HEADER}operations:`, '  GetItem:', '    mode: flow', ...call, '    output: calls.a.body');
    expect(errorsOf(ok)).toEqual([]);
    const wrong = yaml(`${HEADER}operations:`, '  GetItem:', '    mode: static', ...call, '    output: calls.a.body');
    expectOnlyError(wrong, { code: 'MODE_MISMATCH', line: 7, col: 11, mentions: ['mode: static', 'calls, output'] });
    expectOnlyError(yaml(`${HEADER}operations:`, '  GetItem:', '    mode: bulk'), { code: 'VALUE_NOT_ALLOWED', line: 7, col: 11, mentions: ['flow, static, acknowledge, file'] });
  });
});

describe('variants (auth types, pagination styles)', () => {
  it('an unknown type lists the types; a field of another type names the type and its fields', () => {
    const auth = (lines: string[]) => `${HEADER}  auth:\n${lines.map((line) => `    ${line}`).join('\n')}\noperations: {}\n`;
    expectOnlyError(auth(['type: kerberos']), { code: 'VALUE_NOT_ALLOWED', line: 6, col: 11, mentions: ['system.auth.type', 'none, basic, bearer, apiKey, oauth2ClientCredentials'] });
    expectOnlyError(auth(['type: bearer', 'token: ${T}', 'username: u']), { code: 'SETTING_NOT_FOR_VARIANT', line: 8, col: 5, mentions: ['username does not apply to type bearer', 'it takes: token'] }, { T: 't' });
    expectOnlyError(auth(['type: basic', 'username: u']), { code: 'MISSING_SETTING', line: 6, col: 5, mentions: ['with type basic', '"password"'] });
  });
});

describe('defaults come from the declaration', () => {
  it('a plain call and system get the declared defaults', () => {
    const text = yaml(`${HEADER}operations:`, '  GetItem:', '    calls:', '      - name: a', '        method: GET', '        path: /a', '        forEach: { list: input }', '        paginate: { style: offset, pageSize: 10, items: response.body }', '    output: calls.a.body');
    const { mapping } = checkMappingText(text, 'm.yaml', {});
    expect(mapping?.system).toMatchObject({ timeoutMs: 10_000, maxResponseBytes: 52_428_800, maxConcurrency: 16, auth: { type: 'none' } });
    expect(mapping?.limits).toEqual({ timeoutMs: 5000, wallTimeoutMs: 30_000, maxDepth: 500, maxSequence: 1_000_000 });
    const call = callOf(text, 'GetItem');
    expect(call).toMatchObject({ responseType: 'json', timeoutMs: 10_000, retry: { attempts: 1, baseDelayMs: 200, maxDelayMs: 5000, retryAfterMaxMs: 30_000 } });
    expect(call.forEach).toMatchObject({ maxConcurrency: 4, onError: 'fail' });
    expect(call.paginate).toMatchObject({ style: 'offset', offsetParam: 'offset', limitParam: 'limit', maxPages: 100 });
  });
});

describe('settings in two layers', () => {
  it('a fan-out above system.maxConcurrency and a call timeout past the deadline load, with a warning naming the one that wins', () => {
    const text = yaml('version: 1', 'name: test', 'system:', '  baseUrl: http://erp.local/api', '  maxConcurrency: 2', 'operations:', '  ReportWorkOrderStatus:', '    deadlineMs: 3000',
      '    calls:', '      - name: report', '        method: POST', '        path: /orders/{item}', '        timeoutMs: 5000', '        forEach: { list: "[input.number]", maxConcurrency: 8 }');
    const { mapping, issues } = checkMappingText(text, 'm.yaml', {});
    expect(mapping).toBeDefined();
    expect(issues.filter((issue) => issue.code === 'LIMIT_CAPPED').map(formatIssue)).toEqual([
      'm.yaml:13:20  warning: operations.ReportWorkOrderStatus.calls[0] may wait 5000 ms for an answer, but the operation\'s deadlineMs is 3000; the deadline ends it first',
      'm.yaml:14:60  warning: operations.ReportWorkOrderStatus.calls[0].forEach.maxConcurrency is 8, but system.maxConcurrency allows only 2 requests to the ERP at once; the lower one applies',
    ]);
  });
});
