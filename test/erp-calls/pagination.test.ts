import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatIssue } from '../../engine/errors';
import { checkMappingText } from '../../engine/mapping/load';
import { nextFromLinkHeader } from '../../engine/pipeline/paginate';
import { head, startEngine, type RunningEngine } from '../support/engine';
import { json, paginated, sequence, startMisbehavingErp, status, type MisbehavingErp, type PageStyle } from '../support/misbehaving-erp';

const COLUMNS = '/WorkOrders/WorkOrderExportColumns';
const columns = Array.from({ length: 7 }, (_, i) => ({ key: `k${i}`, header: `Column ${i}` }));

const columnsOperation = (paginate: string) => `  GetExportColumns:
    calls:
      - name: columns
        method: GET
        path: /columns
        paginate:
${paginate.replace(/^/gm, '          ')}
    output: calls.columns.items
`;

const STYLES: Record<PageStyle, string> = {
  page: 'style: page\nsizeParam: pageSize\npageSize: 3\nitems: response.body.items\nhasMore: response.body.page < response.body.totalPages',
  offset: 'style: offset\npageSize: 3\nitems: response.body.items',
  cursor: 'style: cursor\ncursorParam: cursor\nnext: response.body.nextCursor\nitems: response.body.items',
  nextLink: 'style: nextLink\nnext: response.body.links.next\nitems: response.body.items',
  linkHeader: 'style: linkHeader\nitems: response.body',
};

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

describe('every pagination style', () => {
  for (const style of Object.keys(STYLES) as PageStyle[]) {
    it(`${style}: collects 7 items from 3 pages, in order`, async () => {
      erp.on('GET /columns', paginated(columns, style, 3, '/api/columns'));
      engine = await startEngine(head(erp.url) + columnsOperation(STYLES[style]));
      expect(await engine.call('GET', COLUMNS)).toEqual({ isResultSuccess: true, result: 2, validationStatus: null, externalMessage: null, data: columns });
      expect(erp.count('GET /columns')).toBe(3);
    });
  }

  it('page: without hasMore, a short page is the last one; sends page and size parameters', async () => {
    erp.on('GET /columns', paginated(columns, 'page', 3, '/api/columns'));
    engine = await startEngine(head(erp.url) + columnsOperation('style: page\nsizeParam: pageSize\npageSize: 3\nitems: response.body.items'));
    expect((await engine.call('GET', COLUMNS)).data).toEqual(columns);
    expect(erp.requests.map((r) => r.query.toString())).toEqual(['page=1&pageSize=3', 'page=2&pageSize=3', 'page=3&pageSize=3']);
  });

  it('page: with neither hasMore nor pageSize, an empty page is the last one', async () => {
    erp.on('GET /columns', paginated(columns.slice(0, 6), 'page', 3, '/api/columns'));
    engine = await startEngine(head(erp.url) + columnsOperation('style: page\nitems: response.body.items'));
    expect((await engine.call('GET', COLUMNS)).data).toEqual(columns.slice(0, 6));
    expect(erp.count('GET /columns')).toBe(3);
  });

  it('one page only: a single request', async () => {
    erp.on('GET /columns', paginated(columns.slice(0, 2), 'cursor', 3, '/api/columns'));
    engine = await startEngine(head(erp.url) + columnsOperation(STYLES.cursor));
    expect((await engine.call('GET', COLUMNS)).data).toEqual(columns.slice(0, 2));
    expect(erp.count()).toBe(1);
  });
});

describe('limits and failures', () => {
  it('reports more pages than maxPages instead of cutting the list', async () => {
    erp.on('GET /columns', paginated(columns, 'offset', 2, '/api/columns'));
    engine = await startEngine(head(erp.url) + columnsOperation('style: offset\npageSize: 2\nitems: response.body.items\nmaxPages: 3'));
    const envelope = await engine.call('GET', COLUMNS);
    expect(envelope).toMatchObject({ isResultSuccess: false, result: 3, data: null }); // OperationFailed
    expect(JSON.stringify(envelope.validationStatus)).toContain('more than 3 pages (paginate.maxPages)');
    expect(erp.count('GET /columns')).toBe(3);
  });

  it('stops at a page that answers an error status; the outcome rules see it', async () => {
    const pages = paginated(columns, 'page', 3, '/api/columns');
    erp.on('GET /columns', (request, seen) => (seen === 2 ? status(500) : pages(request, seen)));
    engine = await startEngine(head(erp.url) + columnsOperation(STYLES.page));
    const envelope = await engine.call('GET', COLUMNS);
    expect(envelope).toMatchObject({ isResultSuccess: false, result: 1 }); // AdapterApiClientFailed
    expect(JSON.stringify(envelope.validationStatus)).toContain('answered 500');
    expect(erp.count('GET /columns')).toBe(2);
  });

  it('does not follow a next link that leaves the base URL', async () => {
    erp.on('GET /columns', sequence(json({ items: columns.slice(0, 3), links: { next: 'http://evil.example/steal' } })));
    engine = await startEngine(head(erp.url) + columnsOperation(STYLES.nextLink));
    const envelope = await engine.call('GET', COLUMNS);
    expect(envelope).toMatchObject({ isResultSuccess: false, result: 1 });
    expect(JSON.stringify(envelope.validationStatus)).toContain('it is not followed');
    expect(erp.count()).toBe(1);
  });

  it('reads rel="next" among other Link relations', () => {
    expect(nextFromLinkHeader('</a?p=1>; rel="first", </a?p=2>; rel="next", </a?p=9>; rel="last"')).toBe('/a?p=2');
    expect(nextFromLinkHeader('<https://x/a?p=3>; rel="prev next"')).toBe('https://x/a?p=3');
    expect(nextFromLinkHeader('</a?p=1>; rel="first"')).toBeUndefined();
    expect(nextFromLinkHeader(undefined)).toBeUndefined();
  });
});

describe('checked at load', () => {
  it('asks for the settings a style needs and refuses the ones it does not use', () => {
    const text = head('http://erp.local') + columnsOperation('style: cursor\nitems: response.body.items\nsizeParam: size');
    const errors = checkMappingText(text, 'test.yaml', {}).issues.filter((i) => i.severity === 'error').map(formatIssue);
    expect(errors).toEqual([
      'test.yaml:14:11  operations.GetExportColumns.calls[0].paginate with style cursor is missing the required setting "cursorParam"',
      'test.yaml:14:11  operations.GetExportColumns.calls[0].paginate with style cursor is missing the required setting "next"',
      'test.yaml:16:11  operations.GetExportColumns.calls[0].paginate.sizeParam does not apply to style cursor (it takes: items, maxPages, cursorParam, next, pageSize, lastPageMayBeFull)',
    ]);
  });

  it('reports a bad items expression at its position', () => {
    const text = head('http://erp.local') + columnsOperation('style: linkHeader\nitems: response.body.(');
    const [issue] = checkMappingText(text, 'test.yaml', {}).issues.filter((i) => i.severity === 'error');
    expect(issue).toMatchObject({ code: 'EXPRESSION_SYNTAX', line: 15 });
  });
});
