import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Renamed copies of a mapping file (`customer-001`, `customer-002`, …) in a fresh temporary directory,
 * for the cases that serve many mappings on one port (each under /<name>).
 */
export interface MappingCopies {
  readonly dir: string;
  readonly files: readonly string[];
  readonly names: readonly string[];
}

export function writeMappingCopies(source: string, count: number): MappingCopies {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-mappings-'));
  const text = fs.readFileSync(source, 'utf8');
  if (!/^name: example$/m.test(text)) throw new Error(`${source} no longer has the line "name: example" the copies rename`);
  const width = Math.max(2, String(count).length);
  const names = Array.from({ length: count }, (_, i) => `customer-${String(i + 1).padStart(width, '0')}`);
  const files = names.map((name) => {
    const file = path.join(dir, `${name}.yaml`);
    fs.writeFileSync(file, text.replace(/^name: example$/m, `name: ${name}`));
    return file;
  });
  return { dir, files, names };
}
