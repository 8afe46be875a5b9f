import { describe, expect, it } from 'vitest';
import { childOf, continueTrace, parseTraceparent, traceHeadersOf, traceOfHeaders } from './context';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('W3C traceparent', () => {
  it('reads a valid header, with its sampled flag and tracestate', () => {
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`, 'rojo=00f067aa0ba902b7')).toEqual({ traceId: TRACE, spanId: SPAN, sampled: true, state: 'rojo=00f067aa0ba902b7' });
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-00`)).toEqual({ traceId: TRACE, spanId: SPAN, sampled: false });
    // A later version may add fields; its first four are read as version 00's.
    expect(parseTraceparent(`cc-${TRACE}-${SPAN}-09-what-the-future-holds`)).toMatchObject({ traceId: TRACE, sampled: true });
  });

  it.each([
    ['all-zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['all-zero span id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['version ff', `ff-${TRACE}-${SPAN}-01`],
    ['version 00 with more fields', `00-${TRACE}-${SPAN}-01-extra`],
    ['upper-case hex', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ['a short trace id', `00-${TRACE.slice(1)}-${SPAN}-01`],
    ['two headers joined', `00-${TRACE}-${SPAN}-01, 00-${TRACE}-${SPAN}-01`],
  ])('refuses %s: a new trace begins instead', (_what, header) => {
    expect(parseTraceparent(header)).toBeUndefined();
  });

  it('drops a tracestate longer than a receiver must keep', () => {
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`, `a=${'x'.repeat(600)}`)).toEqual({ traceId: TRACE, spanId: SPAN, sampled: true });
  });

  it('continues the caller\'s trace under a new span, or begins an unsampled one', () => {
    const parent = { traceId: TRACE, spanId: SPAN, sampled: true, state: 'a=1' };
    const own = continueTrace(parent);
    expect(own).toMatchObject({ traceId: TRACE, sampled: true, state: 'a=1' });
    expect(own.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(own.spanId).not.toBe(SPAN);
    expect(childOf(own).spanId).not.toBe(own.spanId);
    const fresh = continueTrace(undefined);
    expect(traceHeadersOf(fresh).traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
  });

  it('writes the headers an ERP reads, and reads them back from request headers as Node gives them', () => {
    const context = { traceId: TRACE, spanId: SPAN, sampled: true, state: 'a=1' };
    expect(traceHeadersOf(context)).toEqual({ traceparent: `00-${TRACE}-${SPAN}-01`, tracestate: 'a=1' });
    expect(traceOfHeaders({ traceparent: `00-${TRACE}-${SPAN}-01`, tracestate: ['a=1', 'b=2'] })).toEqual({ traceId: TRACE, spanId: SPAN, sampled: true, state: 'a=1,b=2' });
    expect(traceOfHeaders({})).toBeUndefined();
  });
});
