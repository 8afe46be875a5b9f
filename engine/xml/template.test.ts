import { describe, expect, it } from 'vitest';
import { XmlError } from './errors';
import { parseXml } from './read';
import { fillXmlTemplate, parseXmlTemplate } from './template';

function failure(run: () => unknown): XmlError {
  try {
    run();
  } catch (error) {
    if (error instanceof XmlError) return error;
    throw error;
  }
  throw new Error('expected an XmlError, nothing was thrown');
}

const NAV_READ = `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">
  <soap:Body>
    <Update xmlns="urn:microsoft-dynamics-schemas/page/salesorder">
      <SalesOrder>
        <Key>{calls.read.result.SalesOrder.Key}</Key>
        <External_Document_No>{input.reference}</External_Document_No>
        <Comment lang="{input.lang}">{ $join(input.notes, ", ") }</Comment>
      </SalesOrder>
    </Update>
  </soap:Body>
</soap:Envelope>`;

describe('parseXmlTemplate', () => {
  it('splits a template into literal XML and holes, each with its place and context', () => {
    const parts = parseXmlTemplate(NAV_READ);
    const holes = parts.filter((part) => typeof part !== 'string');
    expect(holes).toEqual([
      { expression: 'calls.read.result.SalesOrder.Key', context: 'text', line: 5, column: 14 },
      { expression: 'input.reference', context: 'text', line: 6, column: 31 },
      { expression: 'input.lang', context: 'attribute', line: 7, column: 24 },
      { expression: '$join(input.notes, ", ")', context: 'text', line: 7, column: 38 },
    ]);
    expect(parts[0]).toBe(NAV_READ.slice(0, NAV_READ.indexOf('{')));
  });

  it('keeps JSONata braces, strings and comments inside a hole, and reads {{ }} as literal braces', () => {
    const parts = parseXmlTemplate('<a b="{{x}}">{ {"k": "}", "j": \'{\'}.k /* } */ } {{ok}}</a>');
    expect(parts).toEqual(['<a b="{x}">', { expression: '{"k": "}", "j": \'{\'}.k /* } */', context: 'text', line: 1, column: 14 }, ' {ok}</a>']);
  });

  it('refuses a hole in an element or attribute name, in CDATA or a comment, and says where', () => {
    const where = (template: string) => {
      const error = failure(() => parseXmlTemplate(template));
      return [error.kind, error.reason, `${error.line}:${error.column}`];
    };
    expect(where('<r>\n  <{name}>x</{name}>\n</r>')).toEqual(['template', 'a placeholder cannot be part of an element name', '2:4']);
    expect(where('<r>\n  <p:{name} xmlns:p="u"/>\n</r>')).toEqual(['template', 'a placeholder cannot be part of an element name', '2:6']);
    expect(where('<r>\n  <b {name}="1">x</b>\n</r>')).toEqual(['template', 'a placeholder cannot be part of an attribute name', '2:6']);
    expect(where('<r>\n  <b a{n}="1"/></r>')).toEqual(['template', 'a placeholder cannot be part of an attribute name', '2:7']);
    expect(where('<r><![CDATA[{x}]]></r>')).toEqual(['template', 'a placeholder cannot stand inside CDATA; write it as element text (its value is escaped)', '1:13']);
    expect(where('<r><!-- {x} --></r>')).toEqual(['template', 'a placeholder cannot stand inside a comment', '1:9']);
    expect(where('<r><?pi {x}?></r>')).toEqual(['template', 'a placeholder can stand only in element text or an attribute value', '1:9']);
  });

  it('checks that the template is well-formed XML, with positions in the template', () => {
    const where = (template: string) => {
      const error = failure(() => parseXmlTemplate(template));
      return [error.kind, `${error.line}:${error.column}`];
    };
    expect(where('<r>\n  <b>{{x}} {x}</c>\n</r>')).toEqual(['template', '2:18']);
    expect(where('<r>\n  <b>{x}\n</r>')).toEqual(['template', '3:4']);
    expect(where('<r>{x</r>')).toEqual(['template', '1:4']);
    expect(where('<r>}</r>')).toEqual(['template', '1:4']);
    expect(where('<r>{ }</r>')).toEqual(['template', '1:4']);
    expect(where('<!DOCTYPE r><r/>')[0]).toBe('template');
    expect(where('<?xml version="1.0" encoding="windows-1252"?><r/>')[0]).toBe('template');
  });
});

describe('fillXmlTemplate', () => {
  it('escapes every value for its place, so no value can add markup', () => {
    const parts = parseXmlTemplate('<r><userId>{input.user}</userId><n a="{input.a}">{input.n}</n></r>');
    const xml = fillXmlTemplate(parts, ['ops</userId><userId>someone.else@example.com', '"/><evil a="', `& < > " ' ]]> \r\n`]);
    expect(JSON.parse(JSON.stringify(parseXml(Buffer.from(xml)).body))).toEqual({
      r: { userId: 'ops</userId><userId>someone.else@example.com', n: { '@a': '"/><evil a="', '#text': `& < > " ' ]]> \r\n` } },
    });
  });

  it('writes numbers and booleans as JSON does, and fails a missing value or an object naming the hole', () => {
    const parts = parseXmlTemplate('<r q="{q}">{ok}</r>');
    expect(fillXmlTemplate(parts, [2.5, true])).toBe('<r q="2.5">true</r>');
    expect(failure(() => fillXmlTemplate(parts, [undefined, true])).message).toBe('{q} at 1:7 gave no value');
    expect(failure(() => fillXmlTemplate(parts, [1, { a: 1 }])).path).toBe('{ok} at 1:12');
    expect(failure(() => fillXmlTemplate(parts, [1, 'bell\u0007'])).kind).toBe('unwritable');
  });
});
