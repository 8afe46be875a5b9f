import schema from '../../schemas/mapping.schema.json';

/**
 * Completion and hover docs from schemas/mapping.schema.json: every setting's name with its
 * description, gathered once from the schema's properties wherever they are declared.
 */
export interface SettingDoc {
  readonly name: string;
  readonly description: string;
}

function walk(node: unknown, into: Map<string, string>): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, into);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const properties = (node as { properties?: Record<string, unknown> }).properties;
  if (properties && typeof properties === 'object') {
    for (const [name, value] of Object.entries(properties)) {
      const description = (value as { description?: unknown }).description;
      if (!into.has(name) || (typeof description === 'string' && into.get(name) === '')) into.set(name, typeof description === 'string' ? description : '');
    }
  }
  for (const value of Object.values(node)) walk(value, into);
}

const found = new Map<string, string>();
walk(schema, found);

export const SETTINGS: readonly SettingDoc[] = [...found].map(([name, description]) => ({ name, description })).sort((a, b) => a.name.localeCompare(b.name));

export function docOf(name: string): string | undefined {
  return found.get(name) || undefined;
}
