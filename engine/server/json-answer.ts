import { Readable } from 'node:stream';
import type Koa from 'koa';
import { TimeSlices } from '../time-slices';

/**
 * The answer as JSON text, byte for byte what Koa's JSON.stringify would send, but written between
 * turns of the event loop when the answer holds a long `data` list: turning 40,000 work orders into
 * 30 MB of text in one go is a pause of every other request of the process (hundreds of milliseconds on a
 * busy machine). The text goes out as a stream of pieces with its length declared, so it never exists
 * as one string either.
 */

/** Lists shorter than this are written in one go: nothing to gain. */
const LONG_LIST = 1000;
/** Bytes of text collected before they become one piece of the stream. */
const PIECE_CHARS = 64 * 1024;

function longDataList(body: object): unknown[] | undefined {
  const data = (body as { data?: unknown }).data;
  if (!Array.isArray(data) || data.length < LONG_LIST) return undefined;
  // JSON.stringify writes keys in order; `data` must come last for the text to be spliced in after the rest.
  const keys = Object.keys(body);
  return keys[keys.length - 1] === 'data' ? data : undefined;
}

async function pieces(body: object, data: readonly unknown[]): Promise<Buffer[]> {
  const { data: _, ...rest } = body as { data: unknown };
  const head = JSON.stringify(rest);
  const out: Buffer[] = [];
  let text = `${head === '{}' ? '{' : `${head.slice(0, -1)},`}"data":[`;
  const slices = new TimeSlices(64);
  for (let index = 0; index < data.length; index += 1) {
    // As JSON.stringify writes a list: null for what has no JSON form (undefined, a function).
    text += (index === 0 ? '' : ',') + (JSON.stringify(data[index]) ?? 'null');
    if (text.length >= PIECE_CHARS) {
      out.push(Buffer.from(text, 'utf8'));
      text = '';
    }
    if (slices.due()) await slices.turn();
  }
  out.push(Buffer.from(`${text}]}`, 'utf8'));
  return out;
}

/** Sets the response to `body` as JSON (Content-Type application/json; charset=utf-8, as Koa sets it). */
export async function answerJson(ctx: Koa.Context, body: object): Promise<void> {
  const data = longDataList(body);
  if (!data) {
    ctx.body = body;
    return;
  }
  const parts = await pieces(body, data);
  ctx.type = 'json';
  ctx.body = Readable.from(parts);
  ctx.length = parts.reduce((sum, part) => sum + part.length, 0);
}
