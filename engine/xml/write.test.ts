import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { XmlError } from './errors';
import { parseXml, type XmlReadOptions } from './read';
import { soapEnvelope } from './soap';
import { writeXml } from './write';

const NAMESPACES = { so: 'urn:so', x: 'urn:x' };
const read = (xml: string | Buffer, options: XmlReadOptions = {}) => JSON.parse(JSON.stringify(parseXml(Buffer.from(xml), options).body));

function failure(run: () => unknown): XmlError {
  try {
    run();
  } catch (error) {
    if (error instanceof XmlError) return error;
    throw error;
  }
  throw new Error('expected an XmlError, nothing was thrown');
}

/** `value` with the keys of prefix x: (elements and attributes) given prefix zz:. */
function renamed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(renamed);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key.replace(/^(@?)x:/, '$1zz:'), renamed(child)]));
}

describe('writeXml', () => {
  it('writes keys as elements, @ as attributes, #text as text, arrays as repeated elements', () => {
    const xml = writeXml({ Order: { '@no': 'SO-1', Line: [{ '@n': 10, '#text': 'Bolt' }, { '@n': 20, '#text': 'Nut' }], Empty: {}, Note: '' } }, { declaration: false });
    expect(xml).toBe('<Order no="SO-1"><Line n="10">Bolt</Line><Line n="20">Nut</Line><Empty/><Note></Note></Order>');
  });

  it('leaves null and undefined out, writes numbers as JSON does and booleans as true/false', () => {
    const xml = writeXml({ r: { a: null, b: undefined, c: [1, null, 2], n: 1e21, f: 0.1, neg: -0, t: true, f2: false, '@skip': null } }, { declaration: false });
    expect(xml).toBe('<r><c>1</c><c>2</c><n>1e+21</n><f>0.1</f><neg>0</neg><t>true</t><f2>false</f2></r>');
  });

  it('writes a declared prefix in its namespace, declared once on the root', () => {
    const xml = writeXml({ 'so:Order': { '@x:id': '1', 'so:No': 'SO-1', Plain: 'p' } }, { namespaces: NAMESPACES });
    expect(xml).toBe('<?xml version="1.0" encoding="utf-8"?><so:Order x:id="1" xmlns:so="urn:so" xmlns:x="urn:x"><so:No>SO-1</so:No><Plain>p</Plain></so:Order>');
    expect(read(xml, { prefixedKeys: true, namespaces: { s: 'urn:so', y: 'urn:x' } })).toEqual({ 's:Order': { '@y:id': '1', 's:No': 'SO-1', Plain: 'p' } });
  });

  it('escapes every text and attribute value, so & < > " \' and ]]> come back intact', () => {
    const hard = `Nuts & Bolts <M4> "quoted" 'single' ]]> a\r\nb\tc`;
    const xml = writeXml({ r: { '@a': hard, t: hard, n: { '@a': hard, '#text': hard } } });
    expect(xml).not.toContain(']]>');
    expect(read(xml)).toEqual({ r: { '@a': hard, t: hard, n: { '@a': hard, '#text': hard } } });
  });

  it('keeps an injection attempt as text', () => {
    const userId = 'ops</userId><userId>someone.else@example.com';
    const xml = writeXml({ Request: { userId } });
    expect(read(xml)).toEqual({ Request: { userId } });
  });

  it('fails on a character XML 1.0 cannot hold, naming the field', () => {
    for (const [value, char] of [['a\u0001b', 'U+0001'], ['\uD800', 'U+D800'], ['\uFFFE', 'U+FFFE']]) {
      const error = failure(() => writeXml({ Order: { Lines: [{ Text: 'ok' }, { Text: 'ok' }, { Text: value }] } }));
      expect([error.kind, error.path, error.message]).toEqual(['unwritable', 'Order.Lines[2].Text', `Order.Lines[2].Text holds ${char}, a character XML 1.0 cannot hold`]);
    }
    expect(failure(() => writeXml({ r: { '@a': 'x\u0000' } })).path).toBe('r.@a');
    expect(writeXml({ r: 'tab\tnew\nline 𝄞 \uE000' }, { declaration: false })).toBe('<r>tab\tnew\nline 𝄞 \uE000</r>');
  });

  it('fails on what XML cannot show: no single root, an undeclared prefix, a name that is not a name, a list in a list, NaN', () => {
    const reason = (value: unknown) => failure(() => writeXml(value, { namespaces: NAMESPACES })).message;
    expect(reason({ a: '1', b: '2' })).toMatch(/one key, its root element/);
    expect(reason({ a: ['1', '2'] })).toMatch(/one key, its root element/);
    expect(reason('text')).toMatch(/one key, its root element/);
    expect(reason({ r: { 'q:a': '1' } })).toBe('r.q:a: prefix "q" is not declared in the namespaces');
    expect(reason({ r: { '1a': '1' } })).toBe('r.1a: "1a" is not an XML name');
    expect(reason({ r: { 'a b': '1' } })).toBe('r.a b: "a b" is not an XML name');
    expect(reason({ r: { a: [['x']] } })).toMatch(/^r\.a\[0\] is a list inside a list/);
    expect(reason({ r: { n: Number.NaN } })).toBe('r.n is NaN, which is not a number XML can carry');
    expect(reason({ r: { '@a': { b: 1 } } })).toBe('r.@a is object, where a text, number or boolean is needed');
    expect(failure(() => writeXml({ r: '' }, { namespaces: { 'bad:prefix': 'urn:p' } })).message).toMatch(/not one a document can use/);
  });

  it('gives back what it wrote: writeXml then parseXml (strings, attributes, repeats, prefixes)', () => {
    const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.-]{0,6}$/);
    const key = fc.tuple(fc.constantFrom('', 'so:', 'x:'), name).map(([prefix, local]) => `${prefix}${local}`);
    const text = fc.string({ unit: 'binary', maxLength: 20 }).filter((value) => !/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u.test(value));
    const { element } = fc.letrec<{ element: unknown }>((tie) => ({
      element: fc.oneof(
        { depthSize: 'small' },
        text,
        // Keys of one object differ in local name: siblings alike in local name and not in namespace are a clash.
        fc.uniqueArray(fc.tuple(key, fc.oneof(tie('element'), fc.array(tie('element'), { minLength: 2, maxLength: 3 }))), { maxLength: 4, selector: ([k]) => k.replace(/^\w+:/, '') })
          .chain((children) => fc.uniqueArray(fc.tuple(key.map((k) => `@${k}`), text), { maxLength: 3, selector: ([k]) => k.replace(/^@\w+:/, '') })
            // Text beside children must be more than whitespace (which is layout there); beside attributes alone, not empty.
            .chain((attributes) => fc.tuple(fc.constant(children), fc.constant(attributes), fc.option(text.filter((own) => (children.length > 0 ? /\S/.test(own) : own !== '')), { nil: undefined }))))
          .map(([children, attributes, own]) => {
            const value: Record<string, unknown> = Object.fromEntries([...attributes, ...children]);
            if (own !== undefined && (attributes.length > 0 || children.length > 0)) value['#text'] = own;
            // An object with nothing in it is written <a/> and read "": the same value as text.
            return Object.keys(value).length === 0 ? '' : value;
          }),
      ),
    }));
    fc.assert(fc.property(key, element, (rootKey, value) => {
      const xml = writeXml({ [rootKey]: value }, { namespaces: NAMESPACES });
      // Any prefix the reader declares for a URI reads the same: here other prefixes than the writer's.
      const back = read(xml, { prefixedKeys: true, namespaces: { zz: 'urn:x', so: 'urn:so' } });
      expect(back).toEqual(renamed({ [rootKey]: value }));
    }), { numRuns: 300 });
  });
});

describe('soapEnvelope', () => {
  const body = { 'c:Read': { 'c:No': 'C&1' } };
  const namespaces = { c: 'urn:microsoft-dynamics-schemas/page/customer' };

  it('writes a SOAP 1.1 envelope with text/xml and a quoted SOAPAction', () => {
    const request = soapEnvelope(body, { version: '1.1', action: 'urn:microsoft-dynamics-schemas/page/customer:Read', namespaces });
    expect(request.headers).toEqual({ 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: '"urn:microsoft-dynamics-schemas/page/customer:Read"' });
    expect(request.body.toString('utf8')).toBe('<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:c="urn:microsoft-dynamics-schemas/page/customer"><soap:Body><c:Read><c:No>C&amp;1</c:No></c:Read></soap:Body></soap:Envelope>');
    expect(JSON.parse(JSON.stringify(parseXml(request.body).result))).toEqual({ No: 'C&1' });
  });

  it('writes a SOAP 1.2 envelope with the action in the content type', () => {
    const request = soapEnvelope(body, { version: '1.2', action: 'urn:c:Read', namespaces });
    expect(request.headers).toEqual({ 'Content-Type': 'application/soap+xml; charset=utf-8; action="urn:c:Read"' });
    expect(request.body.toString('utf8')).toContain('<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope" xmlns:c=');
    expect(soapEnvelope(null, { version: '1.2' }).headers).toEqual({ 'Content-Type': 'application/soap+xml; charset=utf-8' });
  });

  it('uses the mapping\'s prefix for the envelope namespace, or one the mapping does not use', () => {
    const declared = soapEnvelope(undefined, { version: '1.1', namespaces: { s: 'http://schemas.xmlsoap.org/soap/envelope/' } });
    expect(declared.body.toString()).toBe('<?xml version="1.0" encoding="utf-8"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body></s:Body></s:Envelope>');
    const taken = soapEnvelope({ 'soap:x': '1' }, { version: '1.1', namespaces: { soap: 'urn:other' } });
    expect(taken.body.toString()).toContain('<soap2:Envelope xmlns:soap2="http://schemas.xmlsoap.org/soap/envelope/" xmlns:soap="urn:other"><soap2:Body><soap:x>1</soap:x>');
    expect(taken.headers.SOAPAction).toBe('""');
  });

  it('refuses an action that would break out of its quotes, and a body that is not an object', () => {
    expect(failure(() => soapEnvelope(body, { version: '1.1', action: 'urn:a"; evil="1', namespaces })).path).toBe('soap.action');
    expect(failure(() => soapEnvelope('text', { version: '1.1' })).kind).toBe('unwritable');
  });
});
