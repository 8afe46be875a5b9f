import { mappingJsonSchema } from '../../mapping/format';

/**
 * The reference tables of the mapping format, generated from its one declaration (through its JSON
 * Schema): one table per block, one per auth type and pagination style. docs/mapping-format.md holds
 * them between markers; a test fails when the committed file differs.
 */

interface Schema {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  /** Settings required unless another key is present (json-schema.ts's requiredUnless). */
  if?: { required?: string[] };
  else?: { required?: string[] };
  additionalProperties?: Schema | boolean;
  patternProperties?: Record<string, Schema>;
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  discriminator?: { propertyName: string };
  expression?: boolean;
  template?: boolean;
  secret?: boolean;
  $ref?: string;
}

const TOP = 'Top level';
const OPERATION = 'operations.&lt;Operation&gt;';
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function typeOf(schema: Schema): string {
  if (schema.expression) return 'JSONata expression';
  if (schema.template) return 'text with {placeholders}';
  if (schema.enum) return schema.enum.map((word) => `\`${String(word)}\``).join(' \\| ');
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  if (schema.oneOf && schema.discriminator) return `block, by \`${schema.discriminator.propertyName}\``;
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(' or ');
  const range = schema.minimum !== undefined || schema.maximum !== undefined ? ` ${schema.minimum ?? ''}–${schema.maximum ?? ''}` : '';
  switch (schema.type) {
    case 'integer': return `whole number${range}`;
    case 'number': return 'number';
    case 'string': return 'text';
    case 'boolean': return 'true / false';
    case 'array': return schema.items?.properties ? 'list of blocks' : 'list';
    case 'object': return schema.properties ? 'block' : 'names to values';
    default: return Array.isArray(schema.type) ? schema.type.join(' or ') : 'any JSON';
  }
}

function table(title: string, schema: Schema, skip: readonly string[] = []): string {
  const required = new Set(schema.required ?? []);
  const unless = schema.if?.required?.[0];
  const requiredUnless = new Set(schema.else?.required ?? []);
  const mark = (name: string) => (required.has(name) ? '**required**' : requiredUnless.has(name) ? `**required** without \`${unless}\`` : '');
  const rows = Object.entries(schema.properties ?? {}).filter(([name]) => !skip.includes(name)).map(([name, property]) => {
    const blockDefault = JSON.stringify(property.default) === '{}'; // a block whose own settings have the defaults
    const fallback = property.default === undefined || blockDefault ? mark(name) : `\`${JSON.stringify(property.default)}\``;
    const description = property.description ?? '';
    return `| \`${name}\` | ${cell(typeOf(property))} | ${cell(fallback)} | ${cell(description)} |`;
  });
  if (rows.length === 0) return [`### ${title}`, '', schema.description ?? '', '', 'No further settings.', ''].join('\n');
  return [`### ${title}`, '', schema.description ?? '', '', '| setting | type | default | description |', '|---|---|---|---|', ...rows, ''].join('\n');
}

/** The settings every entry of a `names to values` block takes (push.<name>), when they are a block. */
function entryOf(schema: Schema): Schema | undefined {
  const [entry] = typeof schema.additionalProperties === 'object' ? [schema.additionalProperties] : Object.values(schema.patternProperties ?? {});
  return entry?.properties ? entry : undefined;
}

/** Blocks a push shares with the operations: listed once, under operations. */
const SHARED_WITH_OPERATIONS = ['calls', 'outbox'];

/** Every block under `schema`, depth first, each with the dotted path an integrator writes. */
function blocks(title: string, schema: Schema, out: string[], skip: readonly string[] = [], shared: readonly string[] = []): void {
  if (schema.oneOf && schema.discriminator) {
    const key = schema.discriminator.propertyName;
    out.push(`### ${title}`, '', schema.description ?? '', '');
    for (const member of schema.oneOf) {
      const word = String(member.properties?.[key]?.const);
      blocks(`${title} — ${key}: ${word}`, { ...member, properties: Object.fromEntries(Object.entries(member.properties ?? {}).filter(([name]) => name !== key)) }, out);
    }
    return;
  }
  if (!schema.properties) return;
  out.push(table(title, schema, skip));
  for (const [name, property] of Object.entries(schema.properties)) {
    if (skip.includes(name) || shared.includes(name)) continue;
    const entry = entryOf(property);
    if (entry) {
      blocks(`${title === TOP ? '' : `${title}.`}${name}.&lt;name&gt;`, entry, out, [], SHARED_WITH_OPERATIONS);
      continue;
    }
    const child = property.type === 'array' && property.items ? property.items : property;
    const at = `${title === TOP ? '' : `${title}.`}${name}${property.type === 'array' ? '[]' : ''}`;
    if (child.properties || (child.oneOf && child.discriminator)) blocks(at, child, out);
  }
}

export function renderFormatReference(): string {
  const schema = mappingJsonSchema() as unknown as Schema & { definitions: { operation: Schema } };
  const out: string[] = [
    'Generated from the format declaration (`engine/mapping/format/`) by `npm run docs`; do not edit by hand.',
    'A setting without a default and not marked required may be left out. Contract field lists of the',
    'file layouts (`fields`, `requests`) take the contract\'s field names; see the contract schemas in `schemas/contract/`.',
    '',
  ];
  blocks(TOP, schema, out, ['operations']);
  out.push(`One entry under \`operations:\` per contract route (${Object.keys(schema.properties?.operations?.properties ?? {}).length} names, see the route table); each takes the settings below.`, '');
  blocks(OPERATION, schema.definitions.operation, out);
  return `${out.join('\n').replace(/\n{3,}/g, '\n\n').trim()}\n`;
}
