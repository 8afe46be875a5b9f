/**
 * A value with every object field holding one of a system's emptyValues removed (Odoo's false for every
 * empty field, NAV's blank date 0001-01-01), so expressions see the field as absent. Lists keep their
 * items. Applied to the ERP's answers (JSON, and XML's view) and to uploaded files (JSON documents, CSV
 * cells), as docs/connecting-an-erp.md says.
 */
export function withoutEmptyValues(value: unknown, empty: readonly unknown[]): unknown {
  if (empty.length === 0 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => withoutEmptyValues(item, empty));
  const kept: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (!empty.includes(field)) kept[key] = withoutEmptyValues(field, empty);
  }
  return kept;
}
