import Ajv from 'ajv';
import { FORMAT_KEYWORDS } from './format/keywords';

/**
 * The AJV that checks a mapping's structure, the one set of options for both ways it is compiled: at
 * build time into code (engine/scripts/write-structure-validator.ts) and, where there is no build
 * (tests run from the sources), on first use (check-structure.ts).
 * - verbose: errors carry parentSchema, which the messages read for the allowed settings.
 * - inlineRefs: false: each `$ref`'d definition (an expression, a call, ...) becomes one function instead
 *   of a copy at every place that uses it. Inlined, the validator was 5 MB of code and compiling it took
 *   most of the start-up of a server (1.3 s of CPU on a busy 2-core machine, 0.2 s without); errors are the same.
 */
export function structureAjv(options: { readonly source?: boolean } = {}): Ajv {
  return new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, verbose: true, discriminator: true, inlineRefs: false, code: { source: options.source === true } })
    .addVocabulary([...FORMAT_KEYWORDS]);
}

/** The file the build writes next to check-structure.js in dist/. */
export const AHEAD_OF_TIME_FILE = 'structure-validator.js';
