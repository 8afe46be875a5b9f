import path from 'node:path';
import { OperationFailure } from '../errors';
import type { OutboundRequest } from '../http/client';
import { withQueryParams, type QueryEncoding } from '../http/query-encoding';
import type { LocatedExpression, PaginateSpec } from '../mapping/model';
import type { CallRecord, ExpressionContext, PageView } from './context';
import { isDeepEqual } from '../expressions/deep-equal';
import { evaluateAt } from '../mapping/evaluate';
import { recordOf, type Answer, type SendPage } from './answer';

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

/** A GraphQL connection as paging reads it: its items (nodes, or edges[].node) and pageInfo; nodes undefined when it is none. */
function connectionOf(value: unknown): { nodes?: unknown[]; hasNextPage?: unknown; endCursor?: unknown } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  const { nodes, edges, pageInfo } = value as { nodes?: unknown; edges?: unknown; pageInfo?: { hasNextPage?: unknown; endCursor?: unknown } };
  const items = Array.isArray(nodes) ? nodes : Array.isArray(edges) ? edges.map((edge) => (edge as { node?: unknown } | null)?.node) : undefined;
  return { nodes: items, hasNextPage: pageInfo?.hasNextPage, endCursor: pageInfo?.endCursor };
}

/** What a page's request carries: `page` as the call's body and headers read it with paginate.in: body. */
export type PageState = PageView;

/** The first page's state: the number or offset and limit; no cursor yet. */
function firstState(spec: PaginateSpec): PageState {
  if (spec.style === 'page') return { number: spec.firstPage, ...(spec.pageSize !== undefined ? { limit: spec.pageSize } : {}) };
  if (spec.style === 'offset') return { offset: 0, limit: spec.pageSize };
  return (spec.style === 'cursor' || spec.style === 'connection') && spec.pageSize !== undefined ? { limit: spec.pageSize } : {};
}

/** The state's query parameters, for paginate.in: query. */
function paramsOf(spec: PaginateSpec, state: PageState): Record<string, string | number | undefined> {
  switch (spec.style) {
    case 'page':
      return { [spec.pageParam]: state.number, ...(spec.sizeParam ? { [spec.sizeParam]: spec.pageSize } : {}) };
    case 'offset':
      return { [spec.offsetParam]: state.offset, [spec.limitParam]: state.limit };
    case 'cursor':
      return spec.cursorParam && state.cursor !== undefined ? { [spec.cursorParam]: typeof state.cursor === 'string' ? state.cursor : JSON.stringify(state.cursor) } : {};
    default:
      return {};
  }
}

/** Cheap first: most pages differ in their first or last item, so the whole lists are compared only when both agree. */
function samePage(items: readonly unknown[], previous: readonly unknown[] | undefined): boolean {
  if (!previous || items.length === 0 || items.length !== previous.length) return false;
  if (!isDeepEqual(items[0], previous[0]) || !isDeepEqual(items[items.length - 1], previous[previous.length - 1])) return false;
  return isDeepEqual(items, previous);
}

function noProgress(label: string, pages: number, what: string): OperationFailure {
  return incomplete(label, () => `page ${pages} ${what}, so the ERP is not moving through the list (it may ignore the page state the call sends: check paginate.in and where the body or query puts it)`);
}

/** How pages are made, sent and screened. */
export interface PageIo {
  /**
   * Makes a page's request: once for paginate.in: query (the page state then goes into the query,
   * written as the call writes its own: `encoding`), and for each page with its state for paginate.in: body.
   */
  readonly build: (page?: PageState) => Promise<OutboundRequest>;
  readonly send: SendPage;
  readonly encoding?: QueryEncoding;
  /** The system's refusal rule over one page: a refused page ends the paging and is judged as the call's answer. */
  readonly refused?: (page: CallRecord) => Promise<boolean>;
}

export async function fetchPages(spec: PaginateSpec, io: PageIo, context: ExpressionContext, label: string, base: URL): Promise<Answer> {
  const { build, send, encoding = 'percent' } = io;
  const inBody = spec.in === 'body';
  const plain = inBody ? undefined : await build();
  const requestFor = async (state: PageState): Promise<OutboundRequest> => {
    if (!plain) return build(state);
    const params = paramsOf(spec, state);
    return Object.keys(params).length === 0 ? plain : { ...plain, url: withQueryParams(plain.url, params, encoding) };
  };
  const items: unknown[] = [];
  let previousCount: number | undefined;
  let previousItems: unknown[] | undefined;
  let state = firstState(spec);
  let request = await requestFor(state);
  for (let pages = 1; ; pages += 1) {
    const response = await send(request);
    const record = recordOf(response);
    const target = `${request.method} ${request.url.pathname}`;
    if (response.status >= 300 || response.bodyError !== undefined || (await io.refused?.(record))) return { record: { ...record, items, pages }, target, bodyError: response.bodyError, waitRefused: response.waitRefused };

    // The page's expressions read what the call's own templates read (input, the calls above it), and the page as response.
    const pageContext = { response: record, input: context.input, calls: context.calls, item: context.item, chunk: context.chunk, index: context.index, session: context.session };
    const at = (expression: LocatedExpression, key: string) => evaluateAt(expression, pageContext, `calls.${label}.paginate.${key}`);
    const key = spec.style === 'connection' ? 'connection' : 'items';
    const given = await at(spec.items, key);
    const connection = spec.style === 'connection' ? connectionOf(given) : undefined;
    const found = spec.style === 'connection' ? connection?.nodes : given;
    if (found === undefined) {
      const what = spec.style === 'connection' ? 'no connection with nodes or edges' : 'nothing';
      throw incomplete(label, (where) => `paginate.${key} (${where(spec.items)}) gives ${what} for page ${pages}, which the ERP answered with ${response.status}; an empty page must give an empty list []. Check the expression against the ERP's answer`);
    }
    const pageItems = asList(found);
    if (samePage(pageItems, previousItems)) throw noProgress(label, pages, `has the same ${pageItems.length} items as page ${pages - 1}`);
    items.push(...pageItems);
    previousItems = pageItems;
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
        state = { ...state, number: (state.number as number) + 1 };
        if (more) next = await requestFor(state);
        break;
      }
      case 'offset': {
        const more = spec.hasMore ? (await nextOf(spec.hasMore, 'hasMore')) === true : pageItems.length >= spec.pageSize;
        state = { ...state, offset: (state.offset as number) + spec.pageSize };
        if (more) next = await requestFor(state);
        break;
      }
      case 'cursor': {
        const cursor = await nextOf(spec.next, 'next');
        if (cursor === undefined || cursor === null || cursor === '') break;
        if (state.cursor !== undefined && isDeepEqual(cursor, state.cursor)) throw noProgress(label, pages, `gives the same cursor as the page before (${JSON.stringify(cursor).slice(0, 80)})`);
        state = { ...state, cursor };
        next = await requestFor(state);
        break;
      }
      case 'nextLink': {
        const link = await nextOf(spec.next, 'next');
        if (typeof link === 'string' && link !== '') next = { ...(plain as OutboundRequest), url: underBase(link, request.url, base, label) };
        break;
      }
      case 'connection': {
        // Without pageInfo the end of the list cannot be told from a page the document forgot to ask about.
        if (typeof connection?.hasNextPage !== 'boolean') throw incomplete(label, (where) => `page ${pages}'s connection (${where(spec.items)}) has no pageInfo.hasNextPage, so the end of the list cannot be told; add pageInfo { hasNextPage endCursor } to the document`);
        if (!connection.hasNextPage) break;
        const cursor = connection.endCursor;
        if (typeof cursor !== 'string' || cursor === '') throw incomplete(label, (where) => `page ${pages}'s connection (${where(spec.items)}) says hasNextPage but gives no pageInfo.endCursor to ask for the next page; add pageInfo { hasNextPage endCursor } to the document`);
        if (state.cursor !== undefined && isDeepEqual(cursor, state.cursor)) throw noProgress(label, pages, `gives the same endCursor as the page before (${cursor.slice(0, 80)})`);
        state = { ...state, cursor };
        next = await requestFor(state);
        break;
      }
      case 'linkHeader': {
        const link = nextFromLinkHeader(response.headers.link);
        if (link) next = { ...(plain as OutboundRequest), url: underBase(link, request.url, base, label) };
        break;
      }
    }
    if (!next) return { record: { ...record, items, pages }, target };
    if ((spec.style === 'nextLink' || spec.style === 'linkHeader') && next.url.href === request.url.href) throw noProgress(label, pages, `links to itself as the next page (${request.url.pathname})`);
    if (pages >= spec.maxPages) {
      const message = `calls.${label}: the ERP has more than ${spec.maxPages} pages (paginate.maxPages); nothing is returned rather than a list cut short. Raise maxPages or ask the ERP for fewer, larger pages`;
      throw new OperationFailure('PAGE_LIMIT', message, [{ path: `calls.${label}`, message }]);
    }
    request = next;
  }
}
