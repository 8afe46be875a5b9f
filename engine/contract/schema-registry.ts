import Ajv, { type ErrorObject, type FormatDefinition, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats';
import type { Problem } from '../errors';
import { TimeSlices } from '../time-slices';
import { IMAGE_FORMAT_NAMES, isBase64Image } from './base64';
import { dateTimeFormat } from './date-time-format';
import type { JsonSchema } from './routes';
import { contractSchemaFiles } from './schema-files';

/**
 * All contract schemas live in one AJV instance per registry, one registry per engine (validators are
 * engine state, released with it). Validators are compiled once per schema object and cached.
 */
export interface SchemaRegistry {
  compile(schema: JsonSchema): Validator;
  /**
   * A validator that compiles on its first use. A server prepares all 19 routes but a process may
   * answer only a few of them; compiling all up front was a tenth of start-up (see the benchmarks).
   */
  lazy(schema: JsonSchema): Validator;
}

/**
 * The problems of `value`, at most `limit` of them (default 100, as the file routes list). When there
 * are more, one last entry with the path '' says how many more were found (see `unlistedOf`); the
 * problems after the cap are only counted, never built, so a 2,000,000-element list of wrong values
 * costs one cheap pass instead of two million problem objects.
 */
export interface Validator {
  (value: unknown, limit?: number): readonly Problem[];
  /**
   * The same problems, found in time slices that let other requests in (time-slices.ts): a list is
   * checked element by element, so 40,000 work orders are not one long pause of the process.
   */
  inSlices(value: unknown, limit?: number): Promise<readonly Problem[]>;
}

/** Problems listed in one answer before the list ends with "and N more" (the file routes' default too). */
export const DEFAULT_PROBLEM_LIMIT = 100;

/** Annotation keywords that do not constrain a value. */
const ANNOTATIONS = new Set(['$schema', '$id', 'title', 'description', 'definitions', '$comment', 'examples']);
/** Array properties at least this long are checked element by element inside an object. */
const SPLIT_LENGTH = 256;

const unlisted = new WeakMap<readonly Problem[], number>();

/** How many problems a capped list left out (0 when it is complete). The note entry is its last element. */
export function unlistedOf(problems: readonly Problem[]): number {
  return unlisted.get(problems) ?? 0;
}

/** The listed problems without the closing "… and N more" note. */
export function listedOf(problems: readonly Problem[]): readonly Problem[] {
  return unlistedOf(problems) > 0 ? problems.slice(0, -1) : problems;
}

/** AJV error → a path and a message a person can read (`/requests/0/dueDate: must match format "date-time"`). */
/**
 * A value that fails every branch of an `anyOf` (a work order or null) gets AJV's report of each branch
 * and of the `anyOf` itself: "must be null", "must match a schema in anyOf", then the real problems.
 * Where a branch's own errors say what is wrong at or below that place, the noise goes: one problem per mistake.
 * So does a type error beside an enum's at the same place (the list of values says what the value must be).
 */
function withoutBranchNoise(errors: readonly ErrorObject[]): readonly ErrorObject[] {
  const noise = (error: ErrorObject) => error.keyword === 'anyOf' || error.keyword === 'oneOf' || (error.keyword === 'type' && (error.params as { type: unknown }).type === 'null');
  // One pass, not a search of every error for each (a list of 40,000 wrong values would be 1.6e9 steps,
  // one long pause of the process): the places at or above a real problem, and the places of enums.
  const explainedAt = new Set<string>();
  const enumAt = new Set<string>();
  for (const error of errors) {
    if (error.keyword === 'enum') enumAt.add(error.instancePath);
    if (noise(error)) continue;
    // Its ancestors were added with the first error below them: stop there (paths are as deep as a body may be).
    for (let place = error.instancePath; !explainedAt.has(place); place = place.slice(0, Math.max(0, place.lastIndexOf('/')))) {
      explainedAt.add(place);
      if (place === '') break;
    }
  }
  // An enum of integers also says "must be integer" of a text: its list of values says more.
  const listed = (error: ErrorObject) => error.keyword === 'type' && enumAt.has(error.instancePath);
  return errors.filter((error) => !(noise(error) && explainedAt.has(error.instancePath)) && !listed(error));
}

/** A value where the contract wants a list. */
export const MUST_BE_A_LIST = 'must be a list';

function toProblems(errors: readonly ErrorObject[] | null | undefined, root = ''): Problem[] {
  if (!errors) return [];
  return withoutBranchNoise(errors).map((error) => {
    let where = root + error.instancePath;
    let message = error.message ?? 'is invalid';
    if (error.keyword === 'required') {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      where = `${where}/${missing}`;
      message = 'is required';
    } else if (error.keyword === 'additionalProperties') {
      const extra = (error.params as { additionalProperty: string }).additionalProperty;
      where = `${where}/${extra}`;
      message = 'is not a property the contract defines';
    } else if (error.keyword === 'type' && (error.params as { type: unknown }).type === 'array') {
      // Said of the platform's input as of a mapping's output: the hint about JSONata is the output check's (run-operation.ts).
      message = MUST_BE_A_LIST;
    } else if (error.keyword === 'format' && (error.params as { format: unknown }).format === 'image-base64') {
      message = `must be Base64 text of an image (${IMAGE_FORMAT_NAMES.join(', ')}); the value is not Base64 or its bytes are no image (an error page?)`;
    } else if (error.keyword === 'enum') {
      message = `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    }
    return { path: where === '' ? '/' : where, message };
  });
}

/**
 * One place in a contract schema, compiled twice: `fast` stops at the first error (the common case of
 * a valid value is then the cheapest check there is), `full` lists all of them. Values are checked
 * fast first, and only the parts that fail are checked fully: element by element for a list, so the
 * work stops growing once the cap is reached, and AJV never concatenates the errors of thousands of
 * `$ref`'d elements (which takes time growing with the square of the elements: 80,000 bad CSV rows took
 * 25 s in the contract check alone).
 */
interface Part {
  readonly fast: ValidateFunction;
  readonly full: ValidateFunction;
  readonly schema: Record<string, unknown>;
  /** The schema's absolute URI and JSON pointer, when it lives in a contract file. */
  readonly base?: string;
  readonly pointer: string;
}

interface Collector {
  readonly limit: number;
  readonly found: Problem[];
  more: number;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A plain boolean: AJV's validators are type guards, which would narrow `value` to never after a pass. */
function passes(validate: ValidateFunction, value: unknown): boolean {
  return validate(value);
}

function constraints(schema: Record<string, unknown>): string[] {
  return Object.keys(schema).filter((key) => !ANNOTATIONS.has(key));
}

/** `{ type: array, items: {...} }` and nothing else: an empty list is valid and each element stands alone. */
function isPlainList(schema: Record<string, unknown>): boolean {
  return schema.type === 'array' && isPlainObject(schema.items) && constraints(schema).every((key) => key === 'type' || key === 'items');
}

export function createSchemaRegistry(): SchemaRegistry {
  const make = (allErrors: boolean) => {
    // validateSchema: false: every schema given here is the contract's own (its files, and the routes'
    // `$ref`s to them), a constant of the program that test/schemas checks against the meta-schema.
    // Checking them again compiled the meta-schema in each of the four AJV instances a server makes
    // (two per registry): about 55 ms of every start.
    const ajv = new Ajv({ allErrors, strict: true, allowUnionTypes: true, validateSchema: false });
    addFormats(ajv);
    // The same answers in one regular expression (date-time-format.ts): every date of a list answer is checked.
    // Their compare (formatMinimum and the like) is ajv-formats' own.
    ajv.addFormat('date-time', { ...(fullFormats['date-time'] as FormatDefinition<string>), type: 'string', validate: dateTimeFormat(true) });
    ajv.addFormat('iso-date-time', { ...(fullFormats['iso-date-time'] as FormatDefinition<string>), type: 'string', validate: dateTimeFormat(false) });
    ajv.addFormat('image-base64', { type: 'string', validate: isBase64Image });
    ajv.addKeyword({ keyword: 'x-enumNames', schemaType: 'array' });
    // AJV annotates the schema objects it is given; each registry gets its own copies of the shared files.
    for (const schema of contractSchemaFiles().values()) ajv.addSchema(structuredClone(schema) as Record<string, unknown>);
    return ajv;
  };
  const fullAjv = make(true);
  const fastAjv = make(false);
  const cache = new WeakMap<JsonSchema, Validator>();
  const parts = new Map<string, Part>();
  const children = new WeakMap<Part, Map<string, Part | null>>();

  /** A place inside a contract file, by absolute URI and JSON pointer. */
  const fileAt = (base: string, pointer: string): Part | null => {
    const key = `${base}#${pointer}`;
    let part = parts.get(key);
    if (!part) {
      const full = fullAjv.getSchema(key);
      const fast = fastAjv.getSchema(key);
      if (!full || !fast || !isPlainObject(full.schema)) return null;
      part = { full, fast, schema: full.schema, base, pointer };
      parts.set(key, part);
    }
    return part;
  };

  /** The part at `step` below `parent` (`/items`, `/properties/requests`), following a `$ref` it holds. */
  const childOf = (parent: Part, step: string, schema: unknown): Part | null => {
    let known = children.get(parent);
    if (!known) children.set(parent, (known = new Map()));
    const cached = known.get(step);
    if (cached !== undefined) return cached;
    let part: Part | null = null;
    if (isPlainObject(schema)) {
      const ref = schema.$ref;
      if (typeof ref === 'string' && constraints(schema).length === 1) {
        const target = new URL(ref, parent.base ?? 'https://invalid.invalid/');
        const pointer = decodeURIComponent(target.hash.slice(1));
        target.hash = '';
        if (pointer === '' || pointer.startsWith('/')) part = fileAt(target.href, pointer);
      } else if (parent.base !== undefined) {
        part = fileAt(parent.base, parent.pointer + step);
      }
    }
    known.set(step, part);
    return part;
  };

  const collect = (part: Part, value: unknown, path: string, out: Collector): void => {
    if (passes(part.fast, value)) return;
    const room = out.limit - out.found.length;
    if (room <= 0) {
      out.more += 1; // counted, not described: at least one problem here
      return;
    }
    const { schema } = part;
    if (Array.isArray(value) && isPlainList(schema)) {
      const items = childOf(part, '/items', schema.items);
      if (items) {
        for (let index = 0; index < value.length; index += 1) collect(items, value[index], `${path}/${index}`, out);
        return;
      }
    }
    if (isPlainObject(value) && isPlainObject(schema.properties)) {
      // Long lists inside an object (the request lines of one huge work order) are checked element by
      // element; the rest of the object is checked with them left empty, which a plain list accepts.
      const properties = schema.properties;
      let rest: Record<string, unknown> | undefined;
      const lists: [Part, string][] = [];
      for (const [name, item] of Object.entries(value)) {
        if (!Array.isArray(item) || item.length < SPLIT_LENGTH || !Object.hasOwn(properties, name)) continue;
        const child = childOf(part, `/properties/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`, properties[name]);
        if (!child || !isPlainList(child.schema)) continue;
        rest ??= { ...value };
        rest[name] = [];
        lists.push([child, name]);
      }
      if (rest) {
        collectAll(part, rest, path, out);
        for (const [child, name] of lists) collect(child, value[name], `${path}/${name}`, out);
        return;
      }
    }
    collectAll(part, value, path, out);
  };

  /** Every error AJV finds in `value` (it has no long lists left), up to the room that is left. */
  const collectAll = (part: Part, value: unknown, path: string, out: Collector): void => {
    if (passes(part.full, value)) return;
    const problems = toProblems(part.full.errors, path);
    const room = Math.max(0, out.limit - out.found.length);
    out.found.push(...problems.slice(0, room));
    out.more += Math.max(0, problems.length - room);
  };

  const finish = (out: Collector): readonly Problem[] => {
    if (out.more === 0) return out.found;
    const shown = out.found.length;
    const list = [...out.found, { path: '', message: `… and ${out.more} more problem(s) not listed; the first ${shown} are shown` }];
    unlisted.set(list, out.more);
    return list;
  };

  /**
   * `collect(root, value)` for a plain list, element by element between turns of the event loop. The
   * same problems: a plain list passes exactly when every element passes; with no room left, one
   * failing element counts as the list's one unlisted problem, as collect counts it.
   */
  const collectInSlices = async (root: Part, value: unknown, out: Collector): Promise<void> => {
    const items = Array.isArray(value) && isPlainList(root.schema) ? childOf(root, '/items', root.schema.items) : null;
    if (!items || !Array.isArray(value)) {
      collect(root, value, '', out);
      return;
    }
    const slices = new TimeSlices(16);
    const listFull = out.limit <= 0;
    for (let index = 0; index < value.length; index += 1) {
      if (listFull) {
        if (!passes(items.fast, value[index])) {
          out.more += 1;
          return;
        }
      } else {
        collect(items, value[index], `/${index}`, out);
      }
      if (slices.due()) await slices.turn();
    }
  };

  return {
    compile(schema) {
      const cached = cache.get(schema);
      if (cached) return cached;
      const root: Part = { full: fullAjv.compile(schema as Record<string, unknown>), fast: fastAjv.compile(schema as Record<string, unknown>), schema: schema as Record<string, unknown>, pointer: '' };
      const collector = (limit = DEFAULT_PROBLEM_LIMIT): Collector => ({ limit: Math.max(0, limit), found: [], more: 0 });
      const validator: Validator = Object.assign((value: unknown, limit?: number) => {
        const out = collector(limit);
        collect(root, value, '', out);
        return finish(out);
      }, {
        inSlices: async (value: unknown, limit?: number) => {
          const out = collector(limit);
          await collectInSlices(root, value, out);
          return finish(out);
        },
      });
      cache.set(schema, validator);
      return validator;
    },
    lazy(schema) {
      let validator: Validator | undefined;
      const compiled = () => (validator ??= this.compile(schema));
      return Object.assign((value: unknown, limit?: number) => compiled()(value, limit), {
        inSlices: (value: unknown, limit?: number) => compiled().inSlices(value, limit),
      });
    },
  };
}
