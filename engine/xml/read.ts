import type { SaxesTagNS } from 'saxes';
import { decodeXml, decodeXmlParts } from './decode';
import { XmlError } from './errors';
import { checkNamespaces, SOAP_URIS, XML_URI, XMLNS_URI, XSI_URI, type Namespaces } from './names';
import { DEFAULT_XML_LIMITS, readSax, readSaxInSlices, type Fail, type SaxEvents, type Slices, type XmlLimits } from './sax';

/**
 * An XML answer → the JSON view expressions read (issue 30's rules): elements are keys by local name,
 * text is always a string, an empty element is "", xsi:nil="true" is null, attributes are `@name`, an
 * element with attributes or children keeps its text in `#text`, elements named in `lists` are always
 * arrays. Namespaces are matched by URI: with `prefixedKeys` a key is `prefix:local` with the prefix the
 * mapping declared for that URI, whatever prefix the document used. The view is built while parsing;
 * an error anywhere leaves nothing behind (never a partial view).
 */

type XmlValue = string | null | XmlObject | XmlValue[];
interface XmlObject {
  [key: string]: XmlValue;
}

interface SoapFault {
  /** faultcode (1.1) or Code/Value (1.2), without its prefix: "Client", "Sender", "NavCSideException". */
  readonly code: string;
  /** faultstring (1.1) or the first Reason/Text (1.2). */
  readonly string: string;
  /** The detail element's view (its content), or null when the fault has none. */
  readonly detail: XmlValue;
}

export interface XmlReadOptions {
  /** The mapping's prefixes (prefix → namespace URI); used for keys only with `prefixedKeys`. */
  readonly namespaces?: Namespaces;
  /** Local names of elements that are always arrays, one element or many. */
  readonly lists?: Iterable<string>;
  /** Keys `prefix:local` for elements and attributes in a declared namespace. */
  readonly prefixedKeys?: boolean;
  /** The answer's Content-Type charset; wins over the declaration's encoding. */
  readonly charset?: string;
  readonly limits?: Partial<XmlLimits>;
}

/** An element not in `lists` that repeated: it became an array here, and may be one element elsewhere. */
interface RepeatedElement {
  readonly name: string;
  /** Keys from the document's root, dot-separated: Envelope.Body.ReadMultiple_Result.SalesOrder. */
  readonly path: string;
}

export interface XmlDocument {
  /** The whole document: one key, the root element. */
  readonly body: XmlObject;
  /** SOAP: the view of the first element in the Body (the Fault for a fault). */
  readonly result?: XmlValue;
  /** SOAP 1.1 or 1.2 fault, whatever the prefix or HTTP status. */
  readonly fault?: SoapFault;
  /** Each repeated undeclared element once, in document order: `adapter-engine test` warns about them. */
  readonly repeated: readonly RepeatedElement[];
}

/**
 * The view's objects: without Object.prototype (an element named __proto__ or constructor is a key like
 * any other), yet in V8's fast mode, which Object.create(null) objects are not (their construction and
 * reading cost about a third more of the whole parse, measured on 60 orders).
 */
const ViewObject = function ViewObject() {} as unknown as new () => XmlObject;
ViewObject.prototype = Object.create(null);

interface Frame {
  readonly key: string;
  readonly local: string;
  readonly uri: string;
  readonly parent: Frame | undefined;
  /** Attributes and children as they close; created at the first of them. */
  object: XmlObject | undefined;
  /** The namespace URI of the children so far while they all share one (the usual case)… */
  childUri: string | undefined;
  /** …and of each child key once they do not: a second element under a key is a repeat or a clash. */
  childUris: Map<string, string> | undefined;
  hasChildElement: boolean;
  text: string;
  nil: boolean;
  /** Where this element is in a SOAP envelope (`envelope`, `body`, `result`, `fault`, `/Reason/Text`…), if it is. */
  readonly soap: string | undefined;
}

interface Settings {
  readonly lists: ReadonlySet<string>;
  /** URI → the mapping's prefix, when keys are prefixed. */
  readonly prefixes: ReadonlyMap<string, string> | undefined;
}

function settingsOf(options: XmlReadOptions): Settings {
  const namespaces = options.namespaces ?? {};
  checkNamespaces(namespaces);
  let prefixes: Map<string, string> | undefined;
  if (options.prefixedKeys) {
    prefixes = new Map([[XML_URI, 'xml']]);
    for (const [prefix, uri] of Object.entries(namespaces)) if (!prefixes.has(uri)) prefixes.set(uri, prefix);
  }
  return { lists: new Set(options.lists ?? []), prefixes };
}

function keyOf(local: string, uri: string, settings: Settings): string {
  const prefix = settings.prefixes?.get(uri);
  return prefix === undefined ? local : `${prefix}:${local}`;
}

function pathOf(frame: Frame): string {
  const keys: string[] = [];
  for (let at: Frame | undefined = frame; at?.parent; at = at.parent) keys.push(at.key);
  return keys.reverse().join('.');
}

const describeUri = (uri: string) => (uri === '' ? 'no namespace' : `namespace ${uri}`);

function uriOfKey(parent: Frame, key: string): string | undefined {
  return parent.childUris ? parent.childUris.get(key) : parent.childUri;
}

function noteUri(parent: Frame, key: string, uri: string): void {
  if (parent.childUris) {
    parent.childUris.set(key, uri);
  } else if (parent.childUri === undefined) {
    parent.childUri = uri;
  } else if (parent.childUri !== uri) {
    parent.childUris = new Map(Object.keys(parent.object ?? {}).filter((name) => !name.startsWith('@')).map((name) => [name, parent.childUri as string]));
    parent.childUris.set(key, uri);
  }
}

interface Repeats {
  readonly names: Set<string>;
  readonly list: RepeatedElement[];
}

/** Puts a closed child's value under its key: a second value makes an array (a clash if the URIs differ). */
function addChild(parent: Frame, child: { key: string; uri: string; local: string }, value: XmlValue, settings: Settings, repeats: Repeats, fail: Fail): void {
  const object = (parent.object ??= new ViewObject());
  const { key, uri, local } = child;
  const existing = object[key];
  if (existing === undefined) {
    object[key] = settings.lists.has(local) ? [value] : value;
    noteUri(parent, key, uri);
    return;
  }
  const firstUri = uriOfKey(parent, key) ?? '';
  if (firstUri !== uri) {
    fail('clash', `${pathOf(parent)} has two <${local}> elements, in ${describeUri(firstUri)} and ${describeUri(uri)}; declare prefixes for both namespaces and read with prefixed keys`);
  }
  // An element's own value is never an array: an array here is a list or a repeat already.
  if (Array.isArray(existing)) {
    existing.push(value);
    return;
  }
  object[key] = [existing, value];
  if (!repeats.names.has(local)) {
    repeats.names.add(local);
    repeats.list.push({ name: local, path: `${pathOf(parent)}.${key}` });
  }
}

const SOAP_URI_SET: ReadonlySet<string> = new Set(Object.values(SOAP_URIS));

/** The element's place in a SOAP envelope: only the Body's first child and a Fault's parts matter. */
function soapRole(parent: Frame, tag: SaxesTagNS): string | undefined {
  const role = parent.soap;
  if (parent.parent === undefined) return tag.local === 'Envelope' && SOAP_URI_SET.has(tag.uri) ? 'envelope' : undefined;
  if (role === undefined) return undefined;
  if (role === 'envelope') return tag.local === 'Body' && tag.uri === parent.uri ? 'body' : undefined;
  if (role === 'body') {
    if (parent.hasChildElement) return undefined;
    return tag.local === 'Fault' && tag.uri === parent.uri ? 'fault' : 'result';
  }
  if (role === 'fault') return `/${tag.local}`;
  // Code/Value and Reason/Text (1.2) are two levels down; nothing deeper is read.
  return role.startsWith('/') && role.indexOf('/', 1) === -1 ? `${role}/${tag.local}` : undefined;
}

function newFrame(tag: SaxesTagNS, parent: Frame | undefined, key: string, soap: string | undefined): Frame {
  return { key, local: tag.local, uri: tag.uri, parent, object: undefined, childUri: undefined, childUris: undefined, hasChildElement: false, text: '', nil: false, soap };
}

function isNil(value: string): boolean {
  const trimmed = value.trim();
  return trimmed === 'true' || trimmed === '1';
}

/** Attributes as `@name` keys; xsi:nil is read (not kept), namespace declarations are left out. */
function readAttributes(frame: Frame, tag: SaxesTagNS, settings: Settings, fail: Fail): void {
  for (const name in tag.attributes) {
    const attribute = tag.attributes[name];
    if (attribute.uri === XMLNS_URI) continue;
    if (attribute.uri === XSI_URI && attribute.local === 'nil') {
      frame.nil = isNil(attribute.value);
      continue;
    }
    const key = `@${keyOf(attribute.local, attribute.uri, settings)}`;
    const object = (frame.object ??= new ViewObject());
    if (key in object) fail('clash', `<${tag.name}> has two attributes named ${attribute.local} in different namespaces; declare prefixes for them and read with prefixed keys`);
    object[key] = attribute.value;
  }
}

function valueOf(frame: Frame): XmlValue {
  if (frame.nil) return null;
  const object = frame.object;
  if (object === undefined) return frame.text;
  // Whitespace between child elements is layout, not text; a leaf's text is kept exactly.
  if (frame.hasChildElement ? /\S/.test(frame.text) : frame.text !== '') object['#text'] = frame.text;
  return object;
}

interface FaultParts {
  code?: string;
  string?: string;
  detail?: XmlValue;
}

/** The fault's parts as their elements close: 1.1 faultcode/faultstring/detail, 1.2 Code/Value, Reason/Text, Detail. */
function noteFaultPart(parts: FaultParts, role: string, frame: Frame, value: XmlValue): void {
  if (role === '/faultcode' || role === '/Code/Value') {
    // A QName: the prefix is the one the ERP happened to write, the local part is the code.
    const code = frame.text.trim();
    parts.code = code.slice(code.indexOf(':') + 1);
  } else if (role === '/faultstring' || role === '/Reason/Text') {
    parts.string ??= frame.text;
  } else if (role === '/detail' || role === '/Detail') {
    parts.detail = value;
  }
}

function effectiveLimits(limits: Partial<XmlLimits> | undefined): XmlLimits {
  return limits ? { ...DEFAULT_XML_LIMITS, ...limits } : DEFAULT_XML_LIMITS;
}

/** The view being built from the parser's events, and the document once the parser has ended. */
function viewBuilder(options: XmlReadOptions): { readonly reader: (fail: Fail) => SaxEvents; finish(): XmlDocument } {
  const settings = settingsOf(options);
  const documentFrame: Frame = { key: '', local: '', uri: '', parent: undefined, object: undefined, childUri: undefined, childUris: undefined, hasChildElement: false, text: '', nil: false, soap: undefined };
  const repeats: Repeats = { names: new Set(), list: [] };
  const soap: { result?: XmlValue; fault?: SoapFault; parts: FaultParts } = { parts: {} };
  let top = documentFrame;
  const reader = (fail: Fail): SaxEvents => ({
    open(tag) {
      const frame = newFrame(tag, top, keyOf(tag.local, tag.uri, settings), soapRole(top, tag));
      top.hasChildElement = true;
      readAttributes(frame, tag, settings, fail);
      top = frame;
    },
    close() {
      const frame = top;
      const parent = frame.parent as Frame;
      const value = valueOf(frame);
      const role = frame.soap;
      if (role === 'result') {
        soap.result = value;
      } else if (role === 'fault') {
        const { code = '', string = '', detail = null } = soap.parts;
        soap.result = value;
        soap.fault = { code, string, detail };
      } else if (role !== undefined && role.startsWith('/')) {
        noteFaultPart(soap.parts, role, frame, value);
      }
      addChild(parent, frame, value, settings, repeats, fail);
      top = parent;
    },
    text(chunk) {
      top.text += chunk;
    },
  });
  return {
    reader,
    finish() {
      if (documentFrame.object === undefined) throw new XmlError('malformed', 'the document has no root element');
      return { body: documentFrame.object, ...(soap.result === undefined ? {} : { result: soap.result }), ...(soap.fault ? { fault: soap.fault } : {}), repeated: repeats.list };
    },
  };
}

export function parseXml(bytes: Uint8Array, options: XmlReadOptions = {}): XmlDocument {
  const view = viewBuilder(options);
  readSax(decodeXml(bytes, options.charset), view.reader, effectiveLimits(options.limits));
  return view.finish();
}

/**
 * parseXml in time slices (sax.ts's readSaxInSlices), for answers on a request's path: a large one
 * lets the event loop turn as it parses instead of stalling every other request. The same view and errors,
 * and the decoded text (decoded once, a part at a time, as the parse takes it).
 */
export async function parseXmlInSlices(bytes: Uint8Array, slices: Slices, options: XmlReadOptions = {}): Promise<XmlDocument & { readonly text: string }> {
  const view = viewBuilder(options);
  const parts: string[] = [];
  const kept = function* (all: Iterable<string>): Generator<string> {
    for (const part of all) {
      parts.push(part);
      yield part;
    }
  };
  await readSaxInSlices(kept(decodeXmlParts(bytes, options.charset)), view.reader, slices, effectiveLimits(options.limits));
  return { ...view.finish(), text: parts.join('') };
}
