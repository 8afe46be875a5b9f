/**
 * Pagination cannot end early by accident (issue 17): the list the platform gets is complete, or the
 * answer is a failure. A fake ERP pages like SAP Gateway (`d.results`, `d.__next` left out on the last
 * page) or like the generic styles; the mappings carry the typos an integrator makes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { head, startEngine, type RunningEngine } from '../support/engine';
import { json, paginated, sequence, startMisbehavingErp, type Handler, type MisbehavingErp } from '../support/misbehaving-erp';

const COLUMNS = '/WorkOrders/WorkOrderExportColumns';
const columns = (count: number) => Array.from({ length: count }, (_, i) => ({ key: `k${i}`, header: `Column ${i}` }));

/** The mapping; its paginate lines start on line 14, their values at column 11 + the key. */
const columnsOperation = (paginate: string) => `  GetExportColumns:
    calls:
      - name: columns
        method: GET
        path: /columns
        paginate:
${paginate.replace(/^/gm, '          ')}
    output: calls.columns.items
`;

/** SAP Gateway's server-side paging: `size` results per page, `__next` only while more follow. */
function sapPages(all: readonly unknown[], size: number): Handler {
  return (request) => {
    const skip = Number(request.query.get('$skiptoken') ?? 0);
    const more = skip + size < all.length;
    return json({ d: { results: all.slice(skip, skip + size), ...(more ? { __next: `/api/columns?$skiptoken=${skip + size}` } : {}) } });
  };
}

let erp: MisbehavingErp;
let engine: RunningEngine | undefined;
beforeEach(async () => {
  erp = await startMisbehavingErp();
});
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  await erp.close();
});

async function columnsVia(paginate: string, handler: Handler) {
  erp.on('GET /columns', handler);
  engine = await startEngine(head(erp.url) + columnsOperation(paginate));
  return engine.call('GET', COLUMNS);
}

const failure = (envelope: { readonly validationStatus?: unknown }) => JSON.stringify(envelope.validationStatus);

describe('a next link that gives nothing on a full page (SAP Gateway, 56 orders, 20 a page)', () => {
  const all = columns(56);

  it('read right (d.__next), all 56 arrive from 3 pages', async () => {
    const envelope = await columnsVia('style: nextLink\npageSize: 20\nnext: response.body.d.__next\nitems: response.body.d.results', sapPages(all, 20));
    expect(envelope).toMatchObject({ isResultSuccess: true, data: all });
    expect(erp.count('GET /columns')).toBe(3);
  });

  it('the typo of issue 17 (d.next for d.__next) fails the request naming the expression, instead of answering 20 of 56', async () => {
    const envelope = await columnsVia('style: nextLink\npageSize: 20\nnext: response.body.d.next\nitems: response.body.d.results', sapPages(all, 20));
    expect(envelope).toMatchObject({ isResultSuccess: false, result: 3, data: null }); // OperationFailed
    expect(failure(envelope)).toContain('calls.columns: page 1 came back full (20 items, paginate.pageSize is 20), but paginate.next (test-mapping.yaml:16:17) gives nothing');
    expect(failure(envelope)).toContain('lastPageMayBeFull');
    expect(erp.count('GET /columns')).toBe(1);
  });

  it('a last page that is full with no __next (40 orders) fails unless the mapping says lastPageMayBeFull', async () => {
    const forty = columns(40);
    const envelope = await columnsVia('style: nextLink\npageSize: 20\nnext: response.body.d.__next\nitems: response.body.d.results', sapPages(forty, 20));
    expect(envelope).toMatchObject({ isResultSuccess: false, result: 3 });
    expect(failure(envelope)).toContain('page 2 came back full');
    await engine?.close();
    engine = await startEngine(head(erp.url) + columnsOperation('style: nextLink\npageSize: 20\nlastPageMayBeFull: true\nnext: response.body.d.__next\nitems: response.body.d.results'));
    expect(await engine.call('GET', COLUMNS)).toMatchObject({ isResultSuccess: true, data: forty });
  });

  it('without pageSize: a page as full as the one before, with nothing for next, fails', async () => {
    const envelope = await columnsVia('style: nextLink\nnext: response.body.d.__next\nitems: response.body.d.results', sapPages(columns(40), 20));
    expect(failure(envelope)).toContain('page 2 came back full (20 items, as many as the page before), but paginate.next');
    expect(erp.count('GET /columns')).toBe(2);
  });
});

describe('an explicit end is the end, also on a full page', () => {
  it('cursor: null after exactly two full pages', async () => {
    const six = columns(6);
    const envelope = await columnsVia('style: cursor\ncursorParam: cursor\npageSize: 3\nnext: response.body.nextCursor\nitems: response.body.items', paginated(six, 'cursor', 3, '/api/columns'));
    expect(envelope).toMatchObject({ isResultSuccess: true, data: six });
  });

  it('offset: hasMore false on a full page', async () => {
    const envelope = await columnsVia('style: offset\npageSize: 3\nitems: response.body.items\nhasMore: response.body.more', sequence(json({ items: columns(3), more: false })));
    expect(envelope).toMatchObject({ isResultSuccess: true, data: columns(3) });
  });

  it('a short page whose next gives nothing is the last page', async () => {
    const envelope = await columnsVia('style: cursor\ncursorParam: cursor\npageSize: 3\nnext: response.body.nextCursr\nitems: response.body.items', sequence(json({ items: columns(2) })));
    expect(envelope).toMatchObject({ isResultSuccess: true, data: columns(2) });
  });
});

describe('hasMore and cursor that give nothing on a full page', () => {
  it('page: a misspelt hasMore on a full first page (pageSize 3)', async () => {
    const envelope = await columnsVia('style: page\nsizeParam: pageSize\npageSize: 3\nitems: response.body.items\nhasMore: response.body.page < response.body.totalPage', paginated(columns(7), 'page', 3, '/api/columns'));
    expect(envelope).toMatchObject({ isResultSuccess: false, result: 3 });
    expect(failure(envelope)).toContain('page 1 came back full (3 items, paginate.pageSize is 3), but paginate.hasMore (test-mapping.yaml:18:20) gives nothing');
  });

  it('cursor: the ERP leaves the cursor out of a second page as full as the first', async () => {
    const pages = sequence(json({ items: columns(3), nextCursor: 'b' }), json({ items: columns(6).slice(3) }));
    const envelope = await columnsVia('style: cursor\ncursorParam: cursor\nnext: response.body.nextCursor\nitems: response.body.items', pages);
    expect(failure(envelope)).toContain('page 2 came back full (3 items, as many as the page before), but paginate.next');
    expect(erp.requests.map((r) => r.query.toString())).toEqual(['', 'cursor=b']);
  });
});

describe('an items expression that gives nothing', () => {
  it('a misspelt items (issue 17) fails naming the expression, instead of answering an empty list', async () => {
    const envelope = await columnsVia('style: page\nsizeParam: pageSize\npageSize: 3\nitems: response.body.itmes\nhasMore: response.body.page < response.body.totalPages', paginated(columns(7), 'page', 3, '/api/columns'));
    expect(envelope).toMatchObject({ isResultSuccess: false, result: 3, data: null });
    expect(failure(envelope)).toContain('calls.columns: paginate.items (test-mapping.yaml:17:18) gives nothing for page 1, which the ERP answered with 200; an empty page must give an empty list []');
    expect(erp.count('GET /columns')).toBe(1);
  });

  it('a later page without the items field fails too, naming that page', async () => {
    const pages = sequence(json({ items: columns(3), next: '/api/columns?p=2' }), json({ next: null }));
    const envelope = await columnsVia('style: nextLink\nnext: response.body.next\nitems: response.body.items', pages);
    expect(failure(envelope)).toContain('gives nothing for page 2');
  });

  it('an empty list is an empty page, not a failure', async () => {
    const envelope = await columnsVia('style: linkHeader\nitems: response.body.items', sequence(json({ items: [] })));
    expect(envelope).toMatchObject({ isResultSuccess: true, data: [] });
  });
});

describe('paginate expressions read the calls above', () => {
  it('items can filter by an earlier call', async () => {
    erp.on('GET /settings', sequence(json({ hidden: 'k1' })));
    erp.on('GET /columns', paginated(columns(7), 'page', 3, '/api/columns'));
    const settings = '      - name: settings\n        method: GET\n        path: /settings\n';
    const text = head(erp.url) + columnsOperation('style: page\nsizeParam: pageSize\npageSize: 3\nitems: response.body.items[key != $$.calls.settings.body.hidden]\nhasMore: response.body.page < response.body.totalPages')
      .replace('    calls:\n', `    calls:\n${settings}`);
    engine = await startEngine(text);
    expect(await engine.call('GET', COLUMNS)).toMatchObject({ isResultSuccess: true, data: columns(7).filter((c) => c.key !== 'k1') });
  });
});
