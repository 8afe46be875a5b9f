import { contractEnums, type EnumName } from '../contract/enums';
import { DATE_FORMATS, toIsoDateTime } from '../expressions/dates';

/**
 * Column types a mapping can give CSV columns (`types: { qty: integer }`). A cell is checked and
 * converted once, where its row and column are known, which is what lets the operator read
 * `row 17, column qty: "abc" is not a whole number` instead of a contract error about a request line.
 * An empty cell is "no value" whatever the type; converters only see non-empty text.
 */

export type CellConverter = (text: string) => unknown;

/** Thrown by a converter; the message completes `row N, column C: ...`. */
export class CellError extends Error {}

const ENUM_TYPES: readonly EnumName[] = ['UnitOfMeasure', 'RequestType'];

export const COLUMN_TYPES: readonly string[] = [
  'text', 'integer', 'number', 'decimal-comma', 'boolean', 'date',
  ...DATE_FORMATS.map((format) => `date:${format}`),
  ...ENUM_TYPES.map((name) => `enum:${name}`),
];

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const DECIMAL_COMMA = /^[+-]?(?:\d{1,3}(?:\.\d{3})+|\d+)(?:,\d+)?$/;
const BOOLEANS: Readonly<Record<string, boolean>> = { true: true, false: false, yes: true, no: false, '1': true, '0': false };

function integer(text: string): number {
  const trimmed = text.trim();
  const value = Number(trimmed);
  if (!INTEGER.test(trimmed)) throw new CellError(`${JSON.stringify(text)} is not a whole number`);
  if (!Number.isSafeInteger(value)) throw new CellError(`${JSON.stringify(text)} is too large for a whole number`);
  return value;
}

function number(text: string): number {
  const trimmed = text.trim();
  if (!NUMBER.test(trimmed)) throw new CellError(`${JSON.stringify(text)} is not a number (write it like 12.5, with a decimal point)`);
  return Number(trimmed);
}

function decimalComma(text: string): number {
  const trimmed = text.trim();
  if (!DECIMAL_COMMA.test(trimmed)) throw new CellError(`${JSON.stringify(text)} is not a number with a decimal comma (write it like 1.234,5)`);
  return Number(trimmed.replace(/\./g, '').replace(',', '.'));
}

function boolean(text: string): boolean {
  const value = BOOLEANS[text.trim().toLowerCase()];
  if (value === undefined) throw new CellError(`${JSON.stringify(text)} is not true or false (accepted: ${Object.keys(BOOLEANS).join(', ')})`);
  return value;
}

function date(format: string | undefined): CellConverter {
  return (text) => {
    try {
      return toIsoDateTime(text, format);
    } catch (error) {
      throw new CellError((error as Error).message);
    }
  };
}

function enumeration(name: EnumName): CellConverter {
  const known = contractEnums().get(name);
  if (!known) throw new Error(`no contract enum ${name}`);
  return (text) => {
    const trimmed = text.trim();
    const byName = known.byName.get(trimmed);
    if (byName !== undefined) return byName;
    if (INTEGER.test(trimmed) && known.byValue.has(Number(trimmed))) return Number(trimmed);
    throw new CellError(`${JSON.stringify(text)} is not a ${name} (known: ${[...known.byName.keys()].join(', ')}, or their numbers)`);
  };
}

/** The converter of a type name from COLUMN_TYPES; undefined for a name that is not one (a loader error). */
export function columnConverter(type: string): CellConverter | undefined {
  if (!COLUMN_TYPES.includes(type)) return undefined;
  switch (type) {
    case 'text': return (text) => text;
    case 'integer': return integer;
    case 'number': return number;
    case 'decimal-comma': return decimalComma;
    case 'boolean': return boolean;
    case 'date': return date(undefined);
    default:
      if (type.startsWith('date:')) return date(type.slice('date:'.length));
      return enumeration(type.slice('enum:'.length) as EnumName);
  }
}
