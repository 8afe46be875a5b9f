import { describe, expect, it } from 'vitest';
import iconv from 'iconv-lite';
import { XmlError } from './errors';
import { parseXml, type XmlReadOptions } from './read';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const view = (text: string, options?: XmlReadOptions) => parseXml(bytes(text), options);
/** The view as the platform would see it (the view's objects have no prototype). */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value));
const body = (text: string, options?: XmlReadOptions) => plain(view(text, options).body);

function failure(run: () => unknown): XmlError {
  try {
    run();
  } catch (error) {
    if (error instanceof XmlError) return error;
    throw error;
  }
  throw new Error('expected an XmlError, nothing was thrown');
}

describe('parseXml: the JSON view', () => {
  it('keys elements by local name and keeps every text a string, exactly', () => {
    expect(body('<o><code>007</code><qty>1E3</qty><hex>0x1F</hex><flag>true</flag><pad>  a  </pad></o>'))
      .toEqual({ o: { code: '007', qty: '1E3', hex: '0x1F', flag: 'true', pad: '  a  ' } });
  });

  it('reads an empty element as "", xsi:nil as null, and drops whitespace between elements', () => {
    const xml = `<o xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
      <a></a>
      <b/>
      <c xsi:nil="true"/>
      <d xsi:nil="false">x</d>
    </o>`;
    expect(body(xml)).toEqual({ o: { a: '', b: '', c: null, d: 'x' } });
  });

  it('decodes entities and character references, and reads CDATA as text', () => {
    expect(body('<o><n>Nuts &amp; Bolts &lt;M4&gt; &quot;&apos; &#65;&#x42;</n><c><![CDATA[<b>&amp;</b>]]> and more</c></o>'))
      .toEqual({ o: { n: 'Nuts & Bolts <M4> "\' AB', c: '<b>&amp;</b> and more' } });
  });

  it('gives attributes as @name and the text of an element with attributes as #text', () => {
    expect(body('<o no="SO-1" xml:lang="de"><line n="10">Bolt</line><line n="20"/><e a=""></e></o>'))
      .toEqual({ o: { '@no': 'SO-1', '@lang': 'de', line: [{ '@n': '10', '#text': 'Bolt' }, { '@n': '20' }], e: { '@a': '' } } });
  });

  it('keeps text beside child elements in #text', () => {
    expect(body('<p>Hello <b>you</b> there</p>')).toEqual({ p: { b: 'you', '#text': 'Hello  there' } });
  });

  it('makes the elements named in lists arrays, one or many, and reports an undeclared repeat', () => {
    const one = '<r><order><line>a</line></order></r>';
    const many = '<r><order><line>a</line><line>b</line></order><order><line>c</line></order></r>';
    const lists = ['order', 'line'];
    expect(body(one, { lists })).toEqual({ r: { order: [{ line: ['a'] }] } });
    expect(body(many, { lists })).toEqual({ r: { order: [{ line: ['a', 'b'] }, { line: ['c'] }] } });
    expect(view(many, { lists }).repeated).toEqual([]);
    const undeclared = view(many);
    expect(plain(undeclared.body)).toEqual({ r: { order: [{ line: ['a', 'b'] }, { line: 'c' }] } });
    expect(undeclared.repeated).toEqual([{ name: 'line', path: 'r.order.line' }, { name: 'order', path: 'r.order' }]);
  });

  it('reads the same document written with other prefixes the same (namespaces by URI)', () => {
    const a = '<so:Order xmlns:so="urn:so"><so:No>1</so:No><x:Note xmlns:x="urn:n">hi</x:Note></so:Order>';
    const b = '<Order xmlns="urn:so"><No>1</No><Note xmlns="urn:n">hi</Note></Order>';
    const c = '<q:Order xmlns:q="urn:so" xmlns:so="urn:other"><q:No>1</q:No><so:Note xmlns:so="urn:n">hi</so:Note></q:Order>';
    const options = { prefixedKeys: true, namespaces: { s: 'urn:so', n: 'urn:n' } };
    expect(body(a)).toEqual({ Order: { No: '1', Note: 'hi' } });
    for (const text of [a, b, c]) {
      expect(body(text)).toEqual(body(a));
      expect(body(text, options)).toEqual({ 's:Order': { 's:No': '1', 'n:Note': 'hi' } });
    }
  });

  it('refuses two siblings with one local name in different namespaces unless keys are prefixed', () => {
    const xml = '<r xmlns:a="urn:a" xmlns:b="urn:b"><a:Id>1</a:Id><b:Id>2</b:Id><Id>3</Id></r>';
    const error = failure(() => view(xml));
    expect(error.kind).toBe('clash');
    expect(error.message).toContain('r has two <Id> elements, in namespace urn:a and namespace urn:b');
    expect(body(xml, { prefixedKeys: true, namespaces: { a: 'urn:a', b: 'urn:b' } })).toEqual({ r: { 'a:Id': '1', 'b:Id': '2', Id: '3' } });
    // A namespace the mapping did not declare has no prefix to tell it apart: still a clash.
    expect(failure(() => view(xml, { prefixedKeys: true, namespaces: { a: 'urn:a' } })).kind).toBe('clash');
    expect(failure(() => view('<r xmlns:a="urn:a" a:id="1" id="2"/>', { prefixedKeys: false })).kind).toBe('clash');
  });

  it('keys attributes in a namespace by local name, or by the declared prefix', () => {
    const xml = '<r xmlns:t="urn:t" t:id="1" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="T"/>';
    expect(body(xml)).toEqual({ r: { '@id': '1', '@type': 'T' } });
    expect(body(xml, { prefixedKeys: true, namespaces: { tt: 'urn:t' } })).toEqual({ r: { '@tt:id': '1', '@type': 'T' } });
  });

  it('builds objects without a prototype, so an element named __proto__ is a key like any other', () => {
    const result = view('<r><__proto__><polluted>yes</polluted></__proto__><constructor>c</constructor></r>').body;
    expect(plain(result)).toEqual(JSON.parse('{ "r": { "__proto__": { "polluted": "yes" }, "constructor": "c" } }'));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('parseXml: SOAP', () => {
  const envelope11 = (content: string, prefix = 'soap') =>
    `<?xml version="1.0" encoding="utf-8"?><${prefix}:Envelope xmlns:${prefix}="http://schemas.xmlsoap.org/soap/envelope/"><${prefix}:Body>${content}</${prefix}:Body></${prefix}:Envelope>`;

  it('gives the first child of the Body as result, whatever the envelope prefix', () => {
    const content = '<Read_Result xmlns="urn:microsoft-dynamics-schemas/page/customer"><Customer><No>10000</No><Name>Nuts &amp; Bolts</Name></Customer></Read_Result>';
    for (const prefix of ['soap', 'Soap', 's', 'SOAP-ENV']) {
      const document = view(envelope11(content, prefix));
      expect(plain(document.result)).toEqual({ Customer: { No: '10000', Name: 'Nuts & Bolts' } });
      expect(document.fault).toBeUndefined();
    }
    expect(view('<Envelope><Body><x>1</x></Body></Envelope>').result).toBeUndefined();
  });

  it('reads a SOAP 1.1 fault: code without its prefix, string, detail', () => {
    const fault = `<s:Fault><faultcode xmlns:a="urn:microsoft-dynamics-schemas/error">a:Microsoft.Dynamics.Nav.Types.Exceptions.NavNCLRecordNotFoundException</faultcode>
      <faultstring xml:lang="en-US">The Sales Header does not exist. Identification fields and values: Document Type='Order',No.='SO-9'</faultstring>
      <detail><string xmlns="http://schemas.microsoft.com/2003/10/Serialization/">The Sales Header does not exist.</string></detail></s:Fault>`;
    const document = view(envelope11(fault, 's'));
    expect(plain(document.fault)).toEqual({
      code: 'Microsoft.Dynamics.Nav.Types.Exceptions.NavNCLRecordNotFoundException',
      string: "The Sales Header does not exist. Identification fields and values: Document Type='Order',No.='SO-9'",
      detail: { string: 'The Sales Header does not exist.' },
    });
    expect(plain(view(envelope11('<soap:Fault><faultcode>soap:Server</faultcode><faultstring>boom</faultstring></soap:Fault>')).fault))
      .toEqual({ code: 'Server', string: 'boom', detail: null });
  });

  it('reads a SOAP 1.2 fault: Code/Value, the first Reason/Text, Detail', () => {
    const xml = `<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope"><env:Body><env:Fault>
      <env:Code><env:Value>env:Sender</env:Value><env:Subcode><env:Value xmlns:m="urn:m">m:OrderLocked</env:Value></env:Subcode></env:Code>
      <env:Reason><env:Text xml:lang="en">Order SO-1 is locked</env:Text><env:Text xml:lang="de">Auftrag SO-1 ist gesperrt</env:Text></env:Reason>
      <env:Detail><m:lock xmlns:m="urn:m"><m:by>JR</m:by></m:lock></env:Detail></env:Fault></env:Body></env:Envelope>`;
    expect(plain(view(xml).fault)).toEqual({ code: 'Sender', string: 'Order SO-1 is locked', detail: { lock: { by: 'JR' } } });
    // The 1.1 namespace's names do not make a fault in the 1.2 namespace, nor the other way round.
    expect(view(xml.replace('http://www.w3.org/2003/05/soap-envelope', 'urn:not-soap')).fault).toBeUndefined();
  });
});

describe('parseXml: hostile and broken answers', () => {
  it('refuses billion laughs before any entity is expanded', () => {
    const laughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">${Array.from({ length: 9 }, (_, n) => `<!ENTITY lol${n + 1} "${`&lol${n || ''};`.repeat(10)}">`).join('')}]><lolz>&lol9;</lolz>`;
    expect(failure(() => view(laughs)).kind).toBe('doctype');
  });

  it('refuses XXE (an external entity) and any DOCTYPE, even an empty one', () => {
    expect(failure(() => view('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><r>&xxe;</r>')).kind).toBe('doctype');
    expect(failure(() => view('<!DOCTYPE r SYSTEM "http://127.0.0.1:1/evil.dtd"><r/>')).kind).toBe('doctype');
    expect(failure(() => view('<!DOCTYPE r><r/>')).kind).toBe('doctype');
  });

  it('fails a truncated or malformed document instead of giving part of it', () => {
    const whole = '<r><order><no>1</no></order><order><no>2</no></order></r>';
    for (const cut of [whole.length - 1, whole.length - 4, 30, 3]) {
      expect(failure(() => view(whole.slice(0, cut))).kind).toBe('malformed');
    }
    for (const broken of ['', '   ', '<a><b></a>', '<a>x</a><b/>', '<a>&nbsp;</a>', '<a x="1" x="2"/>', '<p:a/>', 'Data at the root level', '<a>\u0001</a>']) {
      expect(failure(() => view(broken)).kind, broken).toBe('malformed');
    }
    const error = failure(() => view('<r>\n  <a>\n</r>'));
    expect([error.line, error.message]).toEqual([3, expect.stringMatching(/\(line 3, column \d+\)$/)]);
  });

  it('stops at each limit while parsing', () => {
    const limit = (text: string, limits: XmlReadOptions['limits']) => failure(() => view(text, { limits }));
    expect(limit(`${'<a>'.repeat(11)}${'</a>'.repeat(11)}`, { maxDepth: 10 }).message).toMatch(/^elements are nested deeper than 10/);
    expect(body(`${'<a>'.repeat(10)}${'</a>'.repeat(10)}`, { limits: { maxDepth: 10 } })).toBeDefined();
    expect(limit(`<r>${'<a/>'.repeat(100)}</r>`, { maxElements: 100 }).message).toMatch(/^the document has more than 100 elements/);
    expect(limit(`<r ${Array.from({ length: 6 }, (_, n) => `a${n}="1"`).join(' ')}/>`, { maxAttributes: 5 }).kind).toBe('limit');
    expect(limit(`<${'n'.repeat(65)}/>`, { maxNameLength: 64 }).kind).toBe('limit');
    expect(limit(`<r a="${'x'.repeat(30)}"><b>${'y'.repeat(30)}</b></r>`, { maxTextLength: 50 }).kind).toBe('limit');
    // An endless document stops at its first element past the limit (the 10th <a>, at 76-78), not at its end.
    const endless = `<r>${'<a>1</a>'.repeat(50_000)}<broken`;
    expect(limit(endless, { maxElements: 10 }).message).toBe('the document has more than 10 elements (line 1, column 78)');
  });
});

describe('parseXml: encodings', () => {
  const text = '<?xml version="1.0" encoding="windows-1252"?><r>Müller & Söhne € 5</r>'.replace('&', '&amp;');

  it('reads windows-1252 as its declaration says', () => {
    expect(plain(parseXml(iconv.encode(text, 'windows-1252')).body)).toEqual({ r: 'Müller & Söhne € 5' });
  });

  it('reads UTF-8 with and without a byte order mark, and refuses invalid UTF-8', () => {
    const utf8 = '<r>Müller €</r>';
    expect(plain(parseXml(Buffer.from(utf8)).body)).toEqual({ r: 'Müller €' });
    expect(plain(parseXml(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(utf8)])).body)).toEqual({ r: 'Müller €' });
    expect(failure(() => parseXml(iconv.encode(utf8, 'windows-1252'))).kind).toBe('encoding');
  });

  it('reads UTF-16 LE and BE with a byte order mark', () => {
    const utf16 = '<?xml version="1.0" encoding="utf-16"?><r a="ä">Müller € 𝄞</r>';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(utf16, 'utf16le')]);
    const be = Buffer.from(le);
    be.swap16();
    be[0] = 0xfe;
    be[1] = 0xff;
    for (const encoded of [le, be]) expect(plain(parseXml(encoded).body)).toEqual({ r: { '@a': 'ä', '#text': 'Müller € 𝄞' } });
    expect(failure(() => parseXml(le.subarray(0, le.length - 1))).kind).toBe('encoding');
  });

  it('lets the Content-Type charset win over the declaration', () => {
    const declaredWrongly = Buffer.from('<?xml version="1.0" encoding="windows-1252"?><r>Müller €</r>', 'utf8');
    expect(plain(parseXml(declaredWrongly, { charset: 'utf-8' }).body)).toEqual({ r: 'Müller €' });
    const latin = iconv.encode('<?xml version="1.0" encoding="utf-8"?><r>Müller</r>', 'latin1');
    expect(plain(parseXml(latin, { charset: 'ISO-8859-1' }).body)).toEqual({ r: 'Müller' });
    expect(failure(() => parseXml(latin, { charset: 'x-klingon' })).kind).toBe('encoding');
  });
});
