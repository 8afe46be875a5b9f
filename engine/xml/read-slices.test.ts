import { describe, expect, it } from 'vitest';
import { TimeSlices } from '../time-slices';
import { XmlError } from './errors';
import iconv from 'iconv-lite';
import { decodeXml, decodeXmlParts } from './decode';
import { parseXml, parseXmlInSlices } from './read';

/**
 * A large XML answer is parsed in time slices on a request's path (issue 41: 1M sibling elements, 8 MB,
 * stalled every other request for 492–803 ms): the same view and errors as parseXml, and the event
 * loop turns while it parses.
 */

const bytes = (text: string) => Buffer.from(text, 'utf8');
const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

/** A ReadMultiple-like answer of `count` sibling elements, with text across the chunk boundaries. */
function siblings(count: number): string {
  const parts = ['<?xml version="1.0" encoding="utf-8"?><r xmlns="urn:x">'];
  for (let index = 0; index < count; index += 1) parts.push(`<i n="${index}">é€😀${index}&amp;</i>`);
  parts.push('</r>');
  return parts.join('');
}

async function failureOf(work: Promise<unknown>): Promise<XmlError> {
  try {
    await work;
  } catch (error) {
    if (error instanceof XmlError) return error;
    throw error;
  }
  throw new Error('expected an XmlError, nothing was thrown');
}

describe('parseXmlInSlices', () => {
  it('gives the view parseXml gives, text, entities and surrogate pairs across chunk boundaries included', async () => {
    const xml = bytes(siblings(20_000));
    const options = { lists: ['i'], prefixedKeys: false };
    expect(plain((await parseXmlInSlices(xml, new TimeSlices(), options)).body)).toEqual(plain(parseXml(xml, options).body));
  });

  it('decodes in parts that keep a character across two parts whole, and gives the text it parsed', async () => {
    const text = siblings(20_000);
    const utf8 = bytes(text);
    const parts = Array.from(decodeXmlParts(utf8));
    expect(parts.length).toBeGreaterThan(10);
    expect(parts.join('')).toBe(text);
    expect((await parseXmlInSlices(utf8, new TimeSlices(), { lists: ['i'] })).text).toBe(text);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(text.replace('encoding="utf-8"', ''), 'utf-16le')]);
    expect(decodeXml(utf16)).toBe(text.replace('encoding="utf-8"', ''));
    const latin = `<?xml version="1.0" encoding="windows-1252"?><r>${'<i>café</i>'.repeat(20_000)}</r>`;
    expect(decodeXml(iconv.encode(latin, 'windows-1252'))).toBe(latin);
  });

  it('refuses a byte that is not UTF-8 however far into the answer it is', async () => {
    const good = bytes(siblings(10_000));
    const broken = Buffer.concat([good.subarray(0, good.length - 4), Buffer.from([0xc3, 0x28]), good.subarray(good.length - 4)]);
    const error = await failureOf(parseXmlInSlices(broken, new TimeSlices()));
    expect(error.kind).toBe('encoding');
    expect(() => parseXml(broken)).toThrow(error.message);
  });

  it('fails where parseXml fails, at the same place', async () => {
    const cases = ['<r><a></r>', '<!DOCTYPE r [<!ENTITY x "y">]><r/>', `<r>${'<i/>'.repeat(30_000)}<i></r>`, ''];
    for (const text of cases) {
      let sync: XmlError | undefined;
      try {
        parseXml(bytes(text));
      } catch (error) {
        sync = error as XmlError;
      }
      const sliced = await failureOf(parseXmlInSlices(bytes(text), new TimeSlices()));
      expect(sliced.message, text.slice(0, 40)).toBe(sync?.message);
      expect(sliced.kind).toBe(sync?.kind);
    }
  });

  it('asks for a turn only before writing more of the document: none for a small answer, one per further chunk of a large one', async () => {
    // Slices whose time is always up: every question is a turn, so the turns count the questions.
    const counting = () => {
      const counter = { turns: 0, due: () => true, turn: async () => { counter.turns += 1; } };
      return counter;
    };
    const small = counting();
    const soap = '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><R xmlns="urn:r"><V>1</V></R></s:Body></s:Envelope>';
    expect((await parseXmlInSlices(bytes(soap), small)).result).toEqual({ V: '1' });
    expect(small.turns).toBe(0);
    // 16 KB of bytes decoded at a time, each part written whole: a 100,000-byte ASCII answer is 7 chunks, 6 turns.
    const text = `<r>${'<i>1234</i>'.repeat(9_090)}${'x'.repeat(3)}</r>`;
    expect(text.length).toBe(100_000);
    expect(Array.from(decodeXmlParts(bytes(text))).filter((part) => part !== '').map((part) => part.length)).toEqual([...Array<number>(6).fill(16 * 1024), 100_000 - 6 * 16 * 1024]);
    const large = counting();
    expect((await parseXmlInSlices(bytes(text), large)).text).toBe(text);
    expect(large.turns).toBe(6);
  });

  it('lets the event loop turn while it parses 1,000,000 sibling elements (8 MB)', async () => {
    const xml = bytes(`<r>${'<i>12345</i>'.repeat(1_000_000)}</r>`);
    expect(xml.length).toBeGreaterThan(8_000_000);
    let turns = 0;
    let last = performance.now();
    let longestPause = 0;
    let parsing = true;
    const tick = () => {
      const now = performance.now();
      longestPause = Math.max(longestPause, now - last);
      last = now;
      turns += 1;
      if (parsing) setImmediate(tick);
    };
    setImmediate(tick);
    const started = performance.now();
    const document = await parseXmlInSlices(xml, new TimeSlices());
    parsing = false;
    const ms = performance.now() - started;
    expect((document.body.r as { i: unknown[] }).i).toHaveLength(1_000_000);
    console.info(`1,000,000 sibling elements (8 MB) parsed in ${Math.round(ms)} ms; the event loop turned ${turns} times, longest pause ${Math.round(longestPause)} ms`);
    // A slice is 10 ms: a parse that let the loop turn about once a slice, whatever the machine's speed.
    expect(turns).toBeGreaterThan(ms / 100);
  }, 60_000);
});
