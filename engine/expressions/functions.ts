import { STRICT_BASE64 } from '../contract/base64';
import { contractEnums, ENUM_DEFINITIONS, type EnumName } from '../contract/enums';
import { toIsoDateTime } from './dates';
import { REQUEST_HELPERS } from './request-helpers';

/**
 * Helper functions every mapping expression can call. Each throws a plain message on bad input; the
 * pipeline turns a throw into a failed transform with that message, never into a silent default.
 */
export interface HelperFunction {
  readonly name: string;
  /** JSONata signature: lets JSONata check argument types before our code runs. */
  readonly signature: string;
  readonly implementation: (...args: never[]) => unknown;
  readonly doc: string;
  /** Gives a new value at every call ($uuid): no result of it may be reused for another input. */
  readonly varies?: boolean;
}

function lookupEnum(enumName: string): ReturnType<typeof contractEnums> extends ReadonlyMap<EnumName, infer T> ? T : never {
  const found = contractEnums().get(enumName as EnumName);
  if (!found) throw new Error(`unknown enum "${enumName}"; known: ${Object.keys(ENUM_DEFINITIONS).join(', ')}`);
  return found;
}


function decodeStrictBase64(text: string): Buffer {
  const compact = text.replace(/\s+/g, '');
  if (!STRICT_BASE64.test(compact)) throw new Error('is not valid Base64');
  return Buffer.from(compact, 'base64');
}

export const HELPER_FUNCTIONS: readonly HelperFunction[] = [
  {
    name: 'enumValue',
    signature: '<ss:n>',
    doc: "$enumValue('UnitOfMeasure', 'Kilogram') → 4. Enums: UnitOfMeasure, RequestType, FileType, WorkOrderStatus.",
    implementation: ((enumName: string, name: string) => {
      const value = lookupEnum(enumName).byName.get(name);
      if (value === undefined) {
        throw new Error(`"${name}" is not a ${enumName}; known: ${[...lookupEnum(enumName).byName.keys()].join(', ')}`);
      }
      return value;
    }) as HelperFunction['implementation'],
  },
  {
    name: 'enumName',
    signature: '<sn:s>',
    doc: "$enumName('WorkOrderStatus', 3) → 'Completed'.",
    implementation: ((enumName: string, value: number) => {
      const name = lookupEnum(enumName).byValue.get(value);
      if (name === undefined) throw new Error(`${value} is not a ${enumName} value`);
      return name;
    }) as HelperFunction['implementation'],
  },
  {
    name: 'parseJson',
    // `l` admits null: the contract sends externalData as null when an order has none.
    signature: '<(sl)-:x>',
    doc: '$parseJson(externalData) → the value of a JSON string; empty, null or missing text gives nothing.',
    implementation: ((text: string | null | undefined) => {
      if (text === undefined || text === null || text.trim() === '') return undefined;
      try {
        return JSON.parse(text);
      } catch (error) {
        throw new Error(`text is not JSON: ${(error as Error).message}`);
      }
    }) as HelperFunction['implementation'],
  },
  {
    name: 'toJson',
    signature: '<x-:s>',
    doc: '$toJson(value) → the value as a JSON string (for externalData fields).',
    implementation: ((value: unknown) => (value === undefined ? undefined : JSON.stringify(value))) as HelperFunction['implementation'],
  },
  {
    name: 'base64FromText',
    signature: '<s-:s>',
    doc: '$base64FromText(text) → Base64 of the UTF-8 bytes of the text.',
    implementation: ((text: string | undefined) => (text === undefined ? undefined : Buffer.from(text, 'utf8').toString('base64'))) as HelperFunction['implementation'],
  },
  {
    name: 'textFromBase64',
    signature: '<s-:s>',
    doc: '$textFromBase64(b64) → the UTF-8 text inside strict Base64; anything else is an error.',
    implementation: ((b64: string | undefined) => (b64 === undefined ? undefined : decodeStrictBase64(b64).toString('utf8'))) as HelperFunction['implementation'],
  },
  {
    name: 'isoDateTime',
    // `l` admits null: ERPs write null for a date they do not have, which gives nothing, not an error;
    // a null format reads the value as with none, so a zone can be given without naming a format.
    signature: '<(snl)-(sl)?s?:s>',
    doc: "$isoDateTime('30.11.2026') → '2026-11-30T00:00:00Z', always UTC in whole seconds; null gives nothing. Optional format: YYYY-MM-DD, DD.MM.YYYY, DD/MM/YYYY, MM/DD/YYYY, YYYYMMDD (null: none). Optional zone, an IANA name: values without an offset are local times there, $isoDateTime('2026-11-30 08:00', null, 'Europe/Berlin') → '2026-11-30T07:00:00Z'.",
    implementation: ((value: unknown, format?: string | null, zone?: string) => toIsoDateTime(value, format, zone)) as HelperFunction['implementation'],
  },
  {
    name: 'odataLiteral',
    signature: '<(snbl)-:s>',
    doc: "$odataLiteral(\"O'Brien\") → 'O''Brien' (quoted, ' doubled), 42 → 42, true → true, null → null: an OData key or $filter value.",
    implementation: ((value: string | number | boolean | null | undefined) => {
      if (value === undefined) return undefined;
      if (typeof value === 'string') return `'${value.replace(/'/g, "''")}'`;
      if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`${value} is no OData number`);
      return value === null ? 'null' : String(value);
    }) as HelperFunction['implementation'],
  },
  // What ERPs ask of a request: signatures, digests, ids, SQL literals (request-helpers.ts).
  ...(REQUEST_HELPERS as readonly HelperFunction[]),
];
