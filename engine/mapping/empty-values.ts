/**
 * A value with every object field holding one of a system's emptyValues removed (Odoo's false for every
 * empty field, NAV's blank date 0001-01-01), so expressions see the field as absent. Lists keep their
 * items. Applied to the ERP's answers (JSON, and XML's view) and to uploaded files (JSON documents, CSV
 * cells), as docs/connecting-an-erp.md says.
 */
export function withoutEmptyValues(value: unknown, empty: readonly unknown[]): unknown {
  if (empty.length === 0 || value === null || typeof value !== 'object') return value;
  return copyWithout(value, empty);
}

/**
 * The copy, by loops rather than Object.entries and map: it walks every answer of a system with
 * emptyValues, and the pairs and callbacks were most of its cost. An object or list is never one of
 * the empty values (they are texts, numbers, booleans or null from the mapping), so only the others
 * are looked up.
 */
function copyWithout(value: object, empty: readonly unknown[]): unknown {
  if (Array.isArray(value)) {
    const list: unknown[] = new Array(value.length);
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      list[index] = item !== null && typeof item === 'object' ? copyWithout(item, empty) : item;
    }
    return list;
  }
  const kept: Record<string, unknown> = {};
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    const field = fields[key];
    if (field !== null && typeof field === 'object') kept[key] = copyWithout(field, empty);
    else if (!empty.includes(field)) kept[key] = field;
  }
  return kept;
}
