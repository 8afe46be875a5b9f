import path from 'node:path';
import { OperationFailure } from '../errors';
import type { OutboundRequest } from '../http/client';
import { withQueryParams, type QueryEncoding } from '../http/query-encoding';
import type { LocatedExpression, PaginateSpec } from '../mapping/model';
import type { ExpressionContext } from './context';
import { evaluateAt } from '../mapping/evaluate';
import type { Answer, SendPage } from './answer';

/**
 * Fetches every page of a paginated call. It stops at the last page, or at the first page that answers
 * an error or redirect status or an unreadable body (the outcome rules then judge that page). The list is
 * complete or the request fails, because a list cut short would look complete to the platform:
 * - more pages than maxPages is a failure that says so (PAGE_LIMIT);
 * - a page whose items expression gives nothing at all (as opposed to an empty list) fails (a misspelt
 *   field would otherwise read every page as empty);
 * - a full page (pageSize items, or as many as the page before) whose next/hasMore expression gives
 *   nothing at all fails, unless the mapping says lastPageMayBeFull: a misspelt next would otherwise end
 *   the list after its first page. An explicit end (null, "", false) is always the end.
 */

function asList(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * `describe` is called twice: with the mapping file's path as loaded, for the log, and with its name only,
 * for the platform (answers carry no server paths, as in evaluateAt).
 */
function incomplete(label: string, describe: (where: (expression: LocatedExpression) => string) => string): OperationFailure {
  const text = (where: (expression: LocatedExpression) => string) => `calls.${label}: ${describe(where)}; nothing is returned rather than a list that may be incomplete`;
  const full = text((e) => `${e.origin.file}:${e.origin.line}:${e.origin.col}`);
  const named = text((e) => `${path.basename(e.origin.file)}:${e.origin.line}:${e.origin.col}`);
  return new OperationFailure('PAGINATION_INCOMPLETE', full, [{ path: `calls.${label}`, message: named }]);
}

/** The URL of `<...>; rel="next"` in a Link header (RFC 8288), if any. */
export function nextFromLinkHeader(header: string | undefined): string | undefined {
  for (const part of (header ?? '').split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (match && /;\s*rel\s*=\s*"?([^";]*\s)?next(\s[^";]*)?"?\s*(;|$)/i.test(match[2])) return match[1];
  }
  return undefined;
}

/** A next link is followed only under the base URL: credentials go along with it. */
function underBase(link: string, current: URL, base: URL, label: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(link, current);
  } catch {
    url = undefined;
  }
  const basePath = base.pathname.replace(/\/+$/, '');
  if (!url || url.origin !== base.origin || !(url.pathname === basePath || url.pathname.startsWith(`${basePath}/`))) {
    const message = `calls.${label}: the ERP's next-page link "${link.slice(0, 120)}" leaves ${base.origin}${basePath}; it is not followed`;
    throw new OperationFailure('ERP_BODY_UNREADABLE', message, [{ path: `calls.${label}`, message }]);
  }
  return url;
}

/** `encoding` writes the page parameters (page, offset, cursor) as the call writes its own query. */
export async function fetchPages(spec: PaginateSpec, first: OutboundRequest, context: ExpressionContext, label: string, base: URL, send: SendPage, encoding: QueryEncoding = 'percent'): Promise<Answer> {
  const withParams = (request: OutboundRequest, params: Record<string, string | number | undefined>): OutboundRequest => ({ ...request, url: withQueryParams(request.url, params, encoding) });
  const items: unknown[] = [];
  let previousCount: number | undefined;
  let page = spec.style === 'page' ? spec.firstPage : 0;
  let offset = 0;
  let request =
    spec.style === 'page' ? withParams(first, { [spec.pageParam]: page, ...(spec.sizeParam ? { [spec.sizeParam]: spec.pageSize } : {}) })
    : spec.style === 'offset' ? withParams(first, { [spec.offsetParam]: 0, [spec.limitParam]: spec.pageSize })
    : first;
  for (let pages = 1; ; pages += 1) {
    const response = await send(request);
    const record = { status: response.status, headers: response.headers, body: response.body };
    const target = `${request.method} ${request.url.pathname}`;
    if (response.status >= 300 || response.bodyError !== undefined) return { record: { ...record, items, pages }, target, bodyError: response.bodyError };

    // The page's expressions read what the call's own templates read (input, the calls above it), and the page as response.
    const pageContext = { response: record, input: context.input, calls: context.calls, item: context.item, chunk: context.chunk, index: context.index };
    const at = (expression: LocatedExpression, key: string) => evaluateAt(expression, pageContext, `calls.${label}.paginate.${key}`);
    const found = await at(spec.items, 'items');
    if (found === undefined) {
      throw incomplete(label, (where) => `paginate.items (${where(spec.items)}) gives nothing for page ${pages}, which the ERP answered with ${response.status}; an empty page must give an empty list []. Check the expression against the ERP's answer`);
    }
    const pageItems = asList(found);
    items.push(...pageItems);
    const pageSize = 'pageSize' in spec ? spec.pageSize : undefined;
    const full = pageItems.length > 0 && ((pageSize !== undefined && pageItems.length >= pageSize) || pageItems.length === previousCount);
    previousCount = pageItems.length;
    /** The value of next/hasMore; nothing at all on a full page is a failure unless the mapping allows it. */
    const nextOf = async (expression: LocatedExpression, key: 'next' | 'hasMore'): Promise<unknown> => {
      const value = await at(expression, key);
      if (value === undefined && full && !spec.lastPageMayBeFull) {
        const size = pageSize !== undefined && pageItems.length >= pageSize ? `paginate.pageSize is ${pageSize}` : 'as many as the page before';
        throw incomplete(label, (where) => `page ${pages} came back full (${pageItems.length} items, ${size}), but paginate.${key} (${where(expression)}) gives nothing, so the end of the list cannot be told from a ${key === 'next' ? 'next page' : 'hasMore'} the expression fails to read. Check the expression against the ERP's answer, or set paginate.lastPageMayBeFull: true if the ERP ends its lists with a full page this way`);
      }
      return value;
    };

    let next: OutboundRequest | undefined;
    switch (spec.style) {
      case 'page': {
        const more = spec.hasMore ? (await nextOf(spec.hasMore, 'hasMore')) === true : spec.pageSize ? pageItems.length >= spec.pageSize : pageItems.length > 0;
        page += 1;
        if (more) next = withParams(request, { [spec.pageParam]: page });
        break;
      }
      case 'offset': {
        const more = spec.hasMore ? (await nextOf(spec.hasMore, 'hasMore')) === true : pageItems.length >= spec.pageSize;
        offset += spec.pageSize;
        if (more) next = withParams(request, { [spec.offsetParam]: offset });
        break;
      }
      case 'cursor': {
        const cursor = await nextOf(spec.next, 'next');
        if (cursor !== undefined && cursor !== null && cursor !== '') next = withParams(first, { [spec.cursorParam]: typeof cursor === 'string' ? cursor : JSON.stringify(cursor) });
        break;
      }
      case 'nextLink': {
        const link = await nextOf(spec.next, 'next');
        if (typeof link === 'string' && link !== '') next = { ...first, url: underBase(link, request.url, base, label) };
        break;
      }
      case 'linkHeader': {
        const link = nextFromLinkHeader(response.headers.link);
        if (link) next = { ...first, url: underBase(link, request.url, base, label) };
        break;
      }
    }
    if (!next) return { record: { ...record, items, pages }, target };
    if (pages >= spec.maxPages) {
      const message = `calls.${label}: the ERP has more than ${spec.maxPages} pages (paginate.maxPages); nothing is returned rather than a list cut short. Raise maxPages or ask the ERP for fewer, larger pages`;
      throw new OperationFailure('PAGE_LIMIT', message, [{ path: `calls.${label}`, message }]);
    }
    request = next;
  }
}
