import { describe, expect, it } from 'vitest';
import { sameXmlInfoset } from './infoset';

describe('sameXmlInfoset', () => {
  it('compares namespaces by URI, ignores attribute order, declarations and whitespace between elements', () => {
    const expected = '<so:Order xmlns:so="urn:so" no="1" type="A">\n  <so:Line>Bolt &amp; nut</so:Line>\n</so:Order>';
    const sent = '<?xml version="1.0"?><Order xmlns="urn:so" xmlns:unused="urn:u" type="A" no="1"><Line><![CDATA[Bolt & nut]]></Line><!-- c --></Order>';
    expect(sameXmlInfoset(expected, sent)).toBeUndefined();
    expect(sameXmlInfoset(Buffer.from(expected), Buffer.from(sent))).toBeUndefined();
  });

  it('gives the first difference as a path and a message', () => {
    const base = '<r xmlns:p="urn:p"><a>1</a><a x="1">2</a><p:b/></r>';
    expect(sameXmlInfoset(base, '<r xmlns:p="urn:p"><a>1</a><a x="1">3</a><p:b/></r>')).toEqual({ path: '/r/a[2]/text()', message: 'text "2" in the first document, text "3" in the second' });
    expect(sameXmlInfoset(base, '<r xmlns:p="urn:p"><a>1</a><a x="2">2</a><p:b/></r>')).toEqual({ path: '/r/a[2]/@x', message: '"1" in the first document, "2" in the second' });
    expect(sameXmlInfoset(base, '<r xmlns:p="urn:p"><a>1</a><a>2</a><p:b/></r>')?.message).toBe('attribute missing in the second document');
    expect(sameXmlInfoset(base, '<r xmlns:p="urn:other"><a>1</a><a x="1">2</a><p:b/></r>')).toEqual({ path: '/r/b[1]', message: 'element <{urn:p}b> in the first document, element <{urn:other}b> in the second' });
    expect(sameXmlInfoset(base, '<r xmlns:p="urn:p"><a>1</a><a x="1">2</a></r>')).toEqual({ path: '/r/b[1]', message: 'element <{urn:p}b> in the first document, nothing in the second' });
    expect(sameXmlInfoset('<r>a b</r>', '<r>a  b</r>')?.path).toBe('/r/text()');
  });
});
