import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../paths';
import { renderErrorReference, renderRouteResults } from './docs/error-reference';
import { renderFormatReference } from './docs/format-reference';
import { renderJsonataFunctions } from './docs/function-reference';

/**
 * `npm run docs`: writes the generated parts of the documentation. Whole files are written whole; parts
 * of hand-written files go between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`.
 * test/docs/generated.test.ts fails when the committed files differ from what this writes.
 */

export interface GeneratedPart {
  readonly file: string;
  /** Marker name inside a hand-written file; absent for a generated file. */
  readonly marker?: string;
  readonly render: () => string;
}

export const GENERATED: readonly GeneratedPart[] = [
  { file: 'docs/mapping-format.md', marker: 'mapping-reference', render: renderFormatReference },
  { file: 'docs/mapping-format.md', marker: 'jsonata-functions', render: renderJsonataFunctions },
  { file: 'docs/results.md', marker: 'route-results', render: renderRouteResults },
  { file: 'docs/errors.md', render: renderErrorReference },
];

/** The file's text with the part put in (markers kept); throws when the markers are missing. */
export function withGenerated(part: GeneratedPart, current: string): string {
  if (!part.marker) return part.render();
  const open = `<!-- generated:${part.marker} -->`;
  const close = `<!-- /generated:${part.marker} -->`;
  const start = current.indexOf(open);
  const end = current.indexOf(close);
  if (start < 0 || end < start) throw new Error(`${part.file} lacks the markers ${open} … ${close}`);
  return `${current.slice(0, start + open.length)}\n${part.render().trim()}\n${current.slice(end)}`;
}

if (require.main === module) {
  for (const part of GENERATED) {
    const file = path.join(PROJECT_ROOT, part.file);
    const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    fs.writeFileSync(file, withGenerated(part, current));
    console.log(`wrote ${part.file}${part.marker ? ` (${part.marker})` : ''}`);
  }
}
