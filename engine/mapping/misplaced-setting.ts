import type { PathSegment } from './yaml-source';

/**
 * "Did you indent it right?": a setting the format does not allow where it landed, but that belongs to a
 * block next to it (the block just above it, whose last line it was meant to continue, or an enclosing
 * one), was almost always indented wrongly. Found by walking the format's JSON Schema along the path.
 */
interface SchemaPart {
  readonly $ref?: string;
  readonly properties?: Readonly<Record<string, SchemaPart>>;
  readonly additionalProperties?: SchemaPart | boolean;
  readonly items?: SchemaPart;
  readonly anyOf?: readonly SchemaPart[];
  readonly oneOf?: readonly SchemaPart[];
  readonly allOf?: readonly SchemaPart[];
}

/** The schema parts that may describe a value: a $ref followed, every branch of a choice. */
function branches(root: SchemaPart, part: SchemaPart | boolean | undefined, depth = 0): SchemaPart[] {
  if (part === undefined || typeof part === 'boolean' || depth > 8) return [];
  const definitions = (root as { definitions?: Record<string, SchemaPart> }).definitions ?? {};
  if (part.$ref?.startsWith('#/definitions/')) return branches(root, definitions[part.$ref.slice('#/definitions/'.length)], depth + 1);
  const choices = [...(part.anyOf ?? []), ...(part.oneOf ?? []), ...(part.allOf ?? [])];
  return [part, ...choices.flatMap((choice) => branches(root, choice, depth + 1))];
}

/** The schema parts of the value at `path`. */
function partsAt(root: SchemaPart, path: readonly PathSegment[]): SchemaPart[] {
  let parts = branches(root, root);
  for (const segment of path) {
    parts = parts.flatMap((part) => branches(root, typeof segment === 'number' ? part.items : (part.properties?.[segment] ?? part.additionalProperties)));
  }
  return parts;
}

function takes(root: SchemaPart, path: readonly PathSegment[], setting: string): boolean {
  return partsAt(root, path).some((part) => part.properties?.[setting] !== undefined);
}

/**
 * Where `setting`, unknown in the block at `path`, belongs: the block just above it in the file (or that
 * block's last list item), else an enclosing block. Undefined when it belongs nowhere near (a typo).
 */
export function misplacedSetting(root: SchemaPart, block: Readonly<Record<string, unknown>>, path: readonly PathSegment[], setting: string): readonly PathSegment[] | undefined {
  const keys = Object.keys(block);
  const above = keys[keys.indexOf(setting) - 1];
  if (above !== undefined) {
    const value = block[above];
    const candidates: PathSegment[][] = Array.isArray(value) && value.length > 0 ? [[...path, above, value.length - 1]] : [[...path, above]];
    for (const candidate of candidates) if (value !== null && typeof value === 'object' && takes(root, candidate, setting)) return candidate;
  }
  for (let depth = path.length - 1; depth >= 0; depth -= 1) {
    if (takes(root, path.slice(0, depth), setting)) return path.slice(0, depth);
  }
  return undefined;
}
