/**
 * The shape of an ERP call's answers, learned from recorded answers (the mapping's test files): which
 * kinds of value stand at each place, which fields every recorded object had, what a list holds. At run
 * time a live answer is checked against it and each departure named: a field every recording had that
 * is missing now, a value of another type, a list that became an object. Pure and cheap: a list is
 * checked by its first CHECKED_ELEMENTS elements, fields the recordings never had are not looked at.
 */

type ValueKind = 'string' | 'number' | 'boolean' | 'null' | 'object' | 'array';

export interface Shape {
  readonly kinds: Set<ValueKind>;
  /** Fields of the objects seen here: their shape, and in how many of the `objects` seen they were. */
  readonly fields: Map<string, { readonly shape: Shape; seen: number }>;
  objects: number;
  /** What the lists seen here held. */
  items?: Shape;
}

export type DriftKind = 'missing' | 'type' | 'list-became-object';

export interface Departure {
  readonly kind: DriftKind;
  /** Where in the answer's body, e.g. `$.positions[0].article`. */
  readonly path: string;
  /** What the recordings had there, e.g. "string", or "present". */
  readonly expected: string;
  readonly got: string;
}

/** A list is checked by its first elements: a page of 5,000 orders drifts in its first as in its last. */
const CHECKED_ELEMENTS = 20;

function kindOf(value: unknown): ValueKind {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' ? type : 'object';
}

export function emptyShape(): Shape {
  return { kinds: new Set(), fields: new Map(), objects: 0 };
}

/** Adds one recorded value to what the shape has seen. */
export function learn(shape: Shape, value: unknown): void {
  const kind = kindOf(value);
  shape.kinds.add(kind);
  if (kind === 'object') {
    shape.objects += 1;
    for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
      let known = shape.fields.get(key);
      if (!known) shape.fields.set(key, (known = { shape: emptyShape(), seen: 0 }));
      known.seen += 1;
      learn(known.shape, field);
    }
  } else if (kind === 'array') {
    shape.items ??= emptyShape();
    for (const element of value as unknown[]) learn(shape.items, element);
  }
}

function childPath(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/**
 * How the value departs from the shape; empty when it fits. `reads`: whether the mapping reads a field
 * of that name; a missing field is a departure when the mapping reads it or an object holding it (a
 * field nobody reads may come and go). Without `reads`, every field every recording had counts.
 */
export function departures(shape: Shape, value: unknown, reads: (key: string) => boolean = () => true): Departure[] {
  const found: Departure[] = [];
  walk(shape, value, '$', false, reads, found);
  return found;
}

function walk(shape: Shape, value: unknown, path: string, readAbove: boolean, reads: (key: string) => boolean, found: Departure[]): void {
  if (shape.kinds.size === 0) return;
  const kind = kindOf(value);
  if (!shape.kinds.has(kind)) {
    const expected = [...shape.kinds].join(' or ');
    found.push({ kind: kind === 'object' && shape.kinds.has('array') ? 'list-became-object' : 'type', path, expected, got: kind });
    return;
  }
  if (kind === 'object') {
    const object = value as Record<string, unknown>;
    for (const [key, field] of shape.fields) {
      const at = childPath(path, key);
      const read = readAbove || reads(key);
      if (!(key in object)) {
        if (field.seen === shape.objects && read) found.push({ kind: 'missing', path: at, expected: 'present', got: 'missing' });
      } else {
        walk(field.shape, object[key], at, read, reads, found);
      }
    }
  } else if (kind === 'array' && shape.items) {
    const list = value as unknown[];
    for (let index = 0; index < Math.min(list.length, CHECKED_ELEMENTS); index += 1) walk(shape.items, list[index], `${path}[${index}]`, readAbove, reads, found);
  }
}
