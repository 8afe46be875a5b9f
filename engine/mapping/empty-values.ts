/**
 * A value with every object field holding one of a system's emptyValues removed (Odoo's false for every
 * empty field, NAV's blank date 0001-01-01), so expressions see the field as absent. Lists keep their
 * items. Applied to the ERP's answers (JSON, and XML's view) and to uploaded files (JSON documents, CSV
 * cells), as docs/connecting-an-erp.md says. The value given is never changed.
 */
export function withoutEmptyValues(value: unknown, empty: readonly unknown[]): unknown {
  if (empty.length === 0 || value === null || typeof value !== 'object') return value;
  return without(value, empty);
}

/** The field at `first` goes (an empty value). */
const DROPPED = Symbol('dropped');

/**
 * Copy on write: an object or list with no empty value at or below it is answered as it is (shared with
 * the answer the trace and the drift check read, as every answer of a system without emptyValues is);
 * only the objects and lists on the way to a removed field are copied. Copying the whole answer took a
 * twentieth of an Odoo list's time and most of its garbage: few fields are `false`, and the many2one
 * pairs `[7, "Acme"]` of every record were copied for nothing. By loops rather than Object.entries and
 * map, and for-in rather than Object.keys (no list of keys per object): an answer's objects come from
 * JSON.parse or the XML view, whose fields are all their own. An object or list is never one of the
 * empty values (they are texts, numbers, booleans or null from the mapping), so only the others are
 * looked up.
 */
function without(value: object, empty: readonly unknown[]): object {
  if (Array.isArray(value)) return listWithout(value as readonly unknown[], empty);
  const fields = value as Record<string, unknown>;
  let index = 0;
  for (const key in fields) {
    const field = fields[key];
    if (field !== null && typeof field === 'object') {
      const kept = without(field, empty);
      if (kept !== field) return objectFrom(fields, index, kept, empty);
    } else if (empty.includes(field)) {
      return objectFrom(fields, index, DROPPED, empty);
    }
    index++;
  }
  return value;
}

/**
 * The copy (a plain object, as every copy was) of an object whose fields before the `first`-th are
 * unchanged; `atFirst` is that field as it is kept, or DROPPED.
 */
function objectFrom(fields: Record<string, unknown>, first: number, atFirst: unknown, empty: readonly unknown[]): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  let index = 0;
  for (const key in fields) {
    const field = fields[key];
    if (index < first) keep(kept, key, field);
    else if (index === first) {
      if (atFirst !== DROPPED) keep(kept, key, atFirst);
    } else if (field !== null && typeof field === 'object') keep(kept, key, without(field, empty));
    else if (!empty.includes(field)) keep(kept, key, field);
    index++;
  }
  return kept;
}

/**
 * A field of the copy. An answer's field named `__proto__` (JSON.parse makes it an own field) is defined
 * as a field too: assigned, it would set the copy's prototype, and the field would vanish from the answer.
 */
function keep(kept: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(kept, key, { value, enumerable: true, writable: true, configurable: true });
  else kept[key] = value;
}

function listWithout(list: readonly unknown[], empty: readonly unknown[]): readonly unknown[] {
  let copy: unknown[] | undefined;
  for (let index = 0; index < list.length; index++) {
    const item = list[index];
    if (item === null || typeof item !== 'object') continue;
    const kept = without(item, empty);
    if (kept === item) continue;
    // A spread, not slice(): slice leaves its fast path on a frozen list (a cached answer, the bench's replayed ones), 30 times slower.
    copy ??= [...list];
    copy[index] = kept;
  }
  return copy ?? list;
}
