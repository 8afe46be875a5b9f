import { XmlError } from './errors';
import { SOAP_URIS, type Namespaces, type SoapVersion } from './names';
import { XML_DECLARATION, XmlWriter } from './write';

/**
 * A SOAP request: the body value written inside `Envelope/Body` by writeXml's rules, and the headers
 * that go with the version: SOAP 1.1 puts the action in a `SOAPAction` header and is `text/xml`; SOAP
 * 1.2 is `application/soap+xml` with the action as a parameter of the content type.
 */

export interface SoapRequestOptions {
  readonly version: SoapVersion;
  /** The operation's action URI (for Dynamics NAV `urn:microsoft-dynamics-schemas/page/customer:Read`). */
  readonly action?: string;
  readonly namespaces?: Namespaces;
}

export interface SoapRequest {
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, string>>;
}

/** The envelope's prefix: the one the mapping declares for the envelope's URI, or the first free one. */
function envelopePrefix(namespaces: Namespaces, uri: string): string {
  const declared = Object.entries(namespaces).find(([, declaredUri]) => declaredUri === uri)?.[0];
  if (declared !== undefined) return declared;
  let prefix = 'soap';
  for (let n = 2; Object.hasOwn(namespaces, prefix); n += 1) prefix = `soap${n}`;
  return prefix;
}

function headersFor(version: SoapVersion, action: string | undefined): Record<string, string> {
  // The action goes inside a quoted string: a quote, backslash or control character there would end it.
  if (action !== undefined && /["\\\p{Cc}]/u.test(action)) throw new XmlError('unwritable', `the SOAP action ${JSON.stringify(action)} holds a quote, backslash or control character`, { path: 'soap.action' });
  if (version === '1.1') return { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${action ?? ''}"` };
  return { 'Content-Type': `application/soap+xml; charset=utf-8${action === undefined ? '' : `; action="${action}"`}` };
}

export function soapEnvelope(bodyValue: unknown, options: SoapRequestOptions): SoapRequest {
  const namespaces = options.namespaces ?? {};
  const uri = SOAP_URIS[options.version];
  if (bodyValue !== null && bodyValue !== undefined && (typeof bodyValue !== 'object' || Array.isArray(bodyValue))) {
    throw new XmlError('unwritable', 'a SOAP body is an object whose keys are the elements inside Body', { path: '' });
  }
  const headers = headersFor(options.version, options.action);
  const writer = new XmlWriter(namespaces);
  const content = bodyValue ? writer.content(bodyValue as Record<string, unknown>, '') : '';
  const prefix = envelopePrefix(namespaces, uri);
  const envelope = `${XML_DECLARATION}<${prefix}:Envelope${writer.declarations({ [prefix]: uri })}><${prefix}:Body>${content}</${prefix}:Body></${prefix}:Envelope>`;
  return { body: Buffer.from(envelope, 'utf8'), headers };
}
