import type { parseXml } from '../../engine/xml/read';

/** The view parseXml gives, as the SOAP stand-in reads its requests: an element's object, and any value in it. */
export type XmlObject = ReturnType<typeof parseXml>['body'];
export type XmlValue = XmlObject[string];
