import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { EXAMPLE, runCli, startServe, stoppedAfterEach, tempDir, writeFile } from './cli-process';

/**
 * Replay before a change goes live: a real `serve` of the example mapping on the example ERP journals
 * 200 requests of mixed operations; `requests export --all` writes them; `diff` replays them, with the
 * ERP gone, through the mapping and a changed copy, and names exactly the answers the change alters.
 */
const { running } = stoppedAfterEach(afterEach);
const OFFLINE = { ERP_URL: 'http://127.0.0.1:9/api/v1' };
const EXAMPLE_TEXT = fs.readFileSync(EXAMPLE, 'utf8');

/** A copy of the example with one text replaced (which must occur). */
function changed(dir: string, name: string, from: string, to: string): string {
  expect(EXAMPLE_TEXT).toContain(from);
  return writeFile(dir, name, EXAMPLE_TEXT.replace(from, to));
}

const CODES = ['SO-1001', 'SO-1002', 'SO-1003', 'SO-1004', 'SO-1005', 'SO-1006', 'SO-1007', 'SO-1008', 'SO-9999'];
const ITEMS = ['A-100', 'A-200', 'A-300', 'A-400', 'A-500', 'A-600', 'A-999'];
const KNOWN_ITEMS = new Set(ITEMS.slice(0, 6));

/** The i-th request of the mix: lookups, Put Wall batches, reports, export columns, placements (events), the order list. */
function request(i: number): { operation: string; path: string; body?: unknown } {
  const n = Math.floor(i / 10);
  switch (i % 10) {
    case 0: case 3: return { operation: 'GetWorkOrderByCode', path: `/WorkOrders/Code?Code=${CODES[(n * 2 + i) % CODES.length]}` };
    case 1: case 4: return { operation: 'GetItem', path: `/Items/${ITEMS[(n * 2 + i) % ITEMS.length]}` };
    case 2: return { operation: 'GetWorkOrdersForPutWall', path: `/WorkOrders/ForPutWall/PW-0${1 + (n % 2)}` };
    case 5: return { operation: 'ConfirmPutWallPlacement', path: '/WorkOrders/ForPutWall', body: { workOrderNumber: CODES[n % 8], itemNumber: 'A-100', completedAmount: 1 + n, confirmedLocationName: 'PW-01-A1', userEmail: 'ann@example.com' } };
    case 6: return { operation: 'GetReport', path: '/WorkOrders/GetReport', body: { workOrdersNumbers: [CODES[n % 8]], storageId: 'WH-MAIN', remainingRequests: { 'A-100': n % 3 } } };
    case 7: return { operation: 'GetExportColumns', path: '/WorkOrders/WorkOrderExportColumns' };
    case 8: return { operation: 'GetExternalIndexableValueLabel', path: '/WorkOrders/WorkOrderExternalIndexableValueLabel' };
    default: return n % 5 === 0 ? { operation: 'GetWorkOrders', path: '/WorkOrders' } : { operation: 'GetItem', path: `/Items/${ITEMS[n % ITEMS.length]}` };
  }
}

interface DiffJson {
  replayed: number;
  changed: number;
  totals: Record<string, number>;
  operations: Record<string, Record<string, number>>;
  changes: { operation: string; request: string; verdict: string; fields: { path: string; old?: unknown; new?: unknown }[]; calls: unknown[]; new: { unrecorded: string[] } }[];
}

describe('adapter-engine diff', () => {
  it('replays 200 journaled requests through a changed mapping and reports exactly the answers it alters', async () => {
    // Every request kept: 200 sent as fast as answered are more than the default CPU budget keeps in full
    // (docs/operations.md#the-request-journal).
    const serving = await startServe(['--example-erp', '--admin-port', '0', '--journal-max-cpu-share', '1', EXAMPLE]);
    running.push(serving);
    const sent = Array.from({ length: 200 }, (_, i) => request(i));
    for (const one of sent) {
      const answer = await fetch(`${serving.urls[0]}${one.path}`, one.body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(one.body) });
      expect(answer.status).toBe(200);
      await answer.json();
    }
    const dir = tempDir();
    const journal = path.join(dir, 'requests.jsonl');
    const exported = await runCli(['requests', 'export', '--all', '--out', journal, '--admin', serving.adminUrl as string]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(/^wrote 200 requests to .*requests\.jsonl \(\S+ to \S+\)$/m);
    const lines = fs.readFileSync(journal, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as { operation: string });
    expect(lines.map((entry) => entry.operation)).toEqual(sent.map((one) => one.operation));

    // The same filters as `requests`: only the lookups of items.
    const items = await runCli(['requests', 'export', '--all', '--operation', 'GetItem', '--admin', serving.adminUrl as string]);
    const itemLookups = sent.filter((one) => one.operation === 'GetItem');
    expect(items.stdout.trimEnd().split('\n')).toHaveLength(itemLookups.length);

    // Straight from the running server's journal: the mapping against itself.
    const live = await runCli(['diff', EXAMPLE, EXAMPLE, '--admin', serving.adminUrl as string]);
    expect(live.code, live.stderr).toBe(0);
    expect(live.stdout).toContain('same  all 200 answers are the same');
    serving.child.kill('SIGTERM');
    await serving.exited;

    // The ERP is gone: everything below replays the recorded answers.
    const renamed = changed(dir, 'renamed.yaml', '"name": $a.text,', '"name": $uppercase($a.text),');
    const result = await runCli(['diff', EXAMPLE, renamed, '--requests', journal, '--json'], { env: OFFLINE });
    expect(result.code, result.stderr).toBe(1);
    const report = JSON.parse(result.stdout) as DiffJson;
    const found = itemLookups.filter((one) => KNOWN_ITEMS.has(one.path.split('/')[2]));
    expect(report.replayed).toBe(200);
    expect(report.changed).toBe(found.length);
    expect(report.totals).toMatchObject({ requests: 200, same: 200 - found.length, different: found.length, 'newly failing': 0, 'newly succeeding': 0, unrecorded: 0 });
    expect(report.operations.GetItem).toMatchObject({ requests: itemLookups.length, different: found.length });
    expect(report.changes.map((change) => change.request)).toEqual(found.map((one) => `GET ${one.path}`));
    for (const change of report.changes) {
      expect(change.fields.map((field) => field.path)).toEqual(['$.data.name']);
      expect(change.fields[0].new).toBe(String(change.fields[0].old).toUpperCase());
      expect(change.calls).toEqual([]);
    }

    const same = await runCli(['diff', EXAMPLE, writeFile(dir, 'copy.yaml', EXAMPLE_TEXT), '--requests', journal], { env: OFFLINE });
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toMatch(new RegExp(`^GetItem +${itemLookups.length} +${itemLookups.length} +0 +0 +0 +0$`, 'm'));
    expect(same.stdout).toContain('same  all 200 answers are the same');

    // A new call to an endpoint the recordings never saw: reported, never guessed.
    const extra = changed(dir, 'extra.yaml', '    output: calls.orders.items.$workOrder($)\n', '      - name: priorities\n        method: GET\n        path: /priorities\n    output: calls.orders.items.$workOrder($)\n');
    const unrecorded = await runCli(['diff', EXAMPLE, extra, '--requests', journal, '--operation', 'GetWorkOrders'], { env: OFFLINE });
    const lists = sent.filter((one) => one.operation === 'GetWorkOrders').length;
    expect(unrecorded.code, unrecorded.stderr).toBe(1);
    expect(unrecorded.stdout).toMatch(new RegExp(`^GetWorkOrders +${lists} +0 +0 +0 +0 +${lists}$`, 'm'));
    expect(unrecorded.stdout).toContain('the new mapping calls priorities, which has no recorded answer');
  }, 240_000); // one server, 200 requests, and six command runs on a busy machine

  it('replays journaled pushes: a changed field of the events\' platform calls is reported exactly, a push the journal cut is left out', async () => {
    const secret = 'diff-push-secret';
    const serving = await startServe(['--example-erp', '--admin-port', '0', EXAMPLE], { ERP_PUSH_SECRET: secret });
    running.push(serving);
    const push = async (name: string, payload: unknown, status: number) => {
      const body = JSON.stringify(payload);
      const at = Math.floor(Date.now() / 1000);
      const signature = `sha256=${createHmac('sha256', secret).update(`${at}.${body}`).digest('hex')}`;
      const answer = await fetch(`${serving.urls[0]}/push/${name}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-timestamp': String(at), 'x-signature': signature }, body });
      expect(answer.status, await answer.text()).toBe(status);
    };
    const stock = [3, 0, 12, 7, 40].map((available, i) => ({ changeNo: i + 1, article: `A-${100 * (i + 1)}`, available }));
    for (const change of stock) await push('StockChange', change, 202);
    await push('StockChange', { changeNo: 9, article: 'A-100', available: -1 }, 400);
    // Larger than the journal keeps of a body: kept as its start only, so it cannot be replayed.
    await push('StockChange', { changeNo: 10, article: 'A-100', available: 1, note: 'x'.repeat(70_000) }, 202);
    // The order of the example's tests, as the example ERP sends it.
    const tests = parse(fs.readFileSync(EXAMPLE.replace(/\.yaml$/, '.test.yaml'), 'utf8')) as { cases: { push?: string; input: unknown }[] };
    await push('NewOrder', tests.cases.find((one) => one.push === 'NewOrder')?.input, 202);
    expect((await fetch(`${serving.urls[0]}/Items/A-100`)).status).toBe(200);
    const dir = tempDir();
    const journal = path.join(dir, 'requests.jsonl');
    const exported = await runCli(['requests', 'export', '--all', '--out', journal, '--admin', serving.adminUrl as string]);
    expect(exported.code, exported.stderr).toBe(0);
    // Straight from the running server's journal, one push endpoint: its journal filter is push/<name>.
    const live = await runCli(['diff', EXAMPLE, EXAMPLE, '--admin', serving.adminUrl as string, '--operation', 'push/StockChange']);
    expect(live.code, live.stderr).toBe(0);
    expect(live.stdout).toMatch(/^push\/StockChange +6 +6 +0 +0 +0 +0$/m);
    expect(live.stdout).toContain('left out: 1 × a push whose body the journal kept only in part');
    serving.child.kill('SIGTERM');
    await serving.exited;

    const doubled = changed(dir, 'stock.yaml', '"availableAmount": record.available,', '"availableAmount": record.available * 2,');
    const result = await runCli(['diff', EXAMPLE, doubled, '--requests', journal, '--json'], { env: OFFLINE });
    expect(result.code, result.stderr).toBe(1);
    const report = JSON.parse(result.stdout) as DiffJson & { leftOut: { source: string; reason: string }[] };
    expect(report.replayed).toBe(8);
    expect(report.operations['push/StockChange']).toEqual({ requests: 6, same: 2, different: 4, 'newly failing': 0, 'newly succeeding': 0, unrecorded: 0 });
    expect(report.operations['push/NewOrder']).toMatchObject({ requests: 1, same: 1 });
    expect(report.operations.GetItem).toMatchObject({ requests: 1, same: 1 });
    expect(report.leftOut).toEqual([{ source: expect.stringMatching(/^request /) as string, reason: 'a push whose body the journal kept only in part (larger than it keeps): it cannot be replayed' }]);
    const moved = stock.filter((change) => change.available !== 0);
    expect(report.changes.map((change) => [change.operation, change.request, change.verdict, change.fields])).toEqual(moved.map(() => ['push/StockChange', 'POST /push/StockChange', 'different', []]));
    expect(report.changes.map((change) => change.calls)).toEqual(moved.map((change) => [{ call: 'stock', change: 'body', fields: [{ path: '$.availableAmount', old: change.available, new: change.available * 2 }] }]));

    const text = await runCli(['diff', EXAMPLE, doubled, '--requests', journal, '--operation', 'push/StockChange'], { env: OFFLINE });
    expect(text.code, text.stderr).toBe(1);
    expect(text.stdout).toMatch(/^push\/StockChange +6 +2 +4 +0 +0 +0$/m);
    expect(text.stdout).toContain('    platform call stock body $.availableAmount: 12 → 24\n');
    expect(text.stdout).toContain('changed  4 of 6 answers: 4 different, 0 newly failing, 0 newly succeeding, 0 unrecorded');
  }, 120_000);

  it('replays the push cases of the mapping\'s test file: a moved platform path is a changed request line of the accepted push only', async () => {
    const dir = tempDir();
    const moved = changed(dir, 'moved.yaml', '        path: /work-orders\n', '        path: /v2/work-orders\n');
    const result = await runCli(['diff', EXAMPLE, moved, '--requests', EXAMPLE.replace(/\.yaml$/, '.test.yaml'), '--json'], { env: OFFLINE });
    expect(result.code, result.stderr).toBe(1);
    const report = JSON.parse(result.stdout) as DiffJson & { leftOut: unknown[]; changes: { source: string }[] };
    expect(report.leftOut).toEqual([]);
    expect(report.operations['push/NewOrder']).toEqual({ requests: 2, same: 1, different: 1, 'newly failing': 0, 'newly succeeding': 0, unrecorded: 0 });
    expect(report.changed).toBe(1);
    expect(report.changes).toEqual([expect.objectContaining({
      source: expect.stringMatching(/example\.test\.yaml:\d+:\d+$/) as string, operation: 'push/NewOrder', request: 'POST /push/NewOrder', verdict: 'different',
      old: { result: 'Accepted', success: true, unrecorded: [] }, fields: [], calls: [{ call: 'workOrder', change: 'request line', old: 'POST /work-orders', new: 'POST /v2/work-orders' }],
    })]);
  }, 60_000);

  it('exits 2 when nothing can be compared: a mapping that does not load, no requests, a file that is no journal', async () => {
    const dir = tempDir();
    const broken = changed(dir, 'broken.yaml', 'result: WorkOrderDoesNotExist', 'result: WorkOrderNotFound');
    const notLoading = await runCli(['diff', EXAMPLE, broken], { env: OFFLINE });
    expect(notLoading.code).toBe(2);
    expect(notLoading.stderr).toContain('"WorkOrderNotFound" is not a result of GET /WorkOrders/Code');
    expect(notLoading.stderr).toContain('broken.yaml does not load; nothing was compared');

    const alone = writeFile(dir, 'alone.yaml', EXAMPLE_TEXT);
    const noTests = await runCli(['diff', alone, alone], { env: OFFLINE });
    expect(noTests.code).toBe(2);
    expect(noTests.stderr).toMatch(/no requests to replay: give --requests <file> .* or write the mapping's tests in .*alone\.test\.yaml/);

    const notJournal = await runCli(['diff', EXAMPLE, EXAMPLE, '--requests', writeFile(dir, 'x.jsonl', '{"a":1}\n')], { env: OFFLINE });
    expect(notJournal.code).toBe(2);
    expect(notJournal.stderr).toContain('x.jsonl:1 is not a journal entry');
  }, 60_000);
});
