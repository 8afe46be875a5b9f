import path from 'node:path';
import type { Mapping } from '../../engine/mapping/model';
import { PROJECT_ROOT } from '../../engine/paths';
import { loadExampleMapping } from '../support/engine';

/** The example's files and the file routes' numbers, shared by the file intake tests. */
export const EXAMPLE_FILES = path.join(PROJECT_ROOT, 'examples', 'files');

/** The example mapping; file mode calls no ERP, so its URL only has to be a URL. */
export function exampleMapping(): Mapping {
  return loadExampleMapping('http://127.0.0.1:9');
}

export const base64 = (content: string | Buffer) => Buffer.from(content).toString('base64');
export const CSV = 1;
export const JSON_FILE = 0;
