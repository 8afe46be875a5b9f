import { OperationFailure } from '../errors';
import type { OutboundRequest } from '../http/client';
import type { LocatedExpression, PaginateSpec } from '../mapping/model';
import type { ExpressionContext } from './context';
import { evaluateAt } from '../mapping/evaluate';
import type { Answer, SendPage } from './answer';

/**
 * Fetches every page of a paginated call. It stops at the last page, or at the first page that answers
 * an error or redirect status or an unreadable body (the outcome rules then judge that page). More pages than
 * maxPages is a failure that says so: a list cut short would look complete to the platform.
 */

function withParams(request: OutboundRequest, params: Record<string, string | number | undefined>): OutboundRequest {
  const url = new URL(request.url.href);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, String(value));
  return { ...request, url };
}

function asList(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
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

export async function fetchPages(spec: PaginateSpec, first: OutboundRequest, context: ExpressionContext, label: string, base: URL, send: SendPage): Promise<Answer> {
  const items: unknown[] = [];
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

    const pageContext = { response: record, input: context.input, item: context.item, chunk: context.chunk, index: context.index };
    const at = (expression: LocatedExpression, key: string) => evaluateAt(expression, pageContext, `calls.${label}.paginate.${key}`);
    const pageItems = asList(await at(spec.items, 'items'));
    items.push(...pageItems);

    let next: OutboundRequest | undefined;
    switch (spec.style) {
      case 'page': {
        const more = spec.hasMore ? (await at(spec.hasMore, 'hasMore')) === true : spec.pageSize ? pageItems.length >= spec.pageSize : pageItems.length > 0;
        page += 1;
        if (more) next = withParams(request, { [spec.pageParam]: page });
        break;
      }
      case 'offset': {
        const more = spec.hasMore ? (await at(spec.hasMore, 'hasMore')) === true : pageItems.length >= spec.pageSize;
        offset += spec.pageSize;
        if (more) next = withParams(request, { [spec.offsetParam]: offset });
        break;
      }
      case 'cursor': {
        const cursor = await at(spec.next, 'next');
        if (cursor !== undefined && cursor !== null && cursor !== '') next = withParams(first, { [spec.cursorParam]: typeof cursor === 'string' ? cursor : JSON.stringify(cursor) });
        break;
      }
      case 'nextLink': {
        const link = await at(spec.next, 'next');
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
