import fs from 'node:fs';
import path from 'node:path';

/**
 * The fast path mirrors one jsonata release line for line (runtime.ts), so it is used only with that
 * release. package.json pins it exactly; this check catches an install that differs anyway (a lock
 * file edited by hand, a hoisted copy) and turns the fast path off rather than risk wrong answers.
 */
export const MIRRORED_JSONATA_VERSION = '2.2.2';

export interface FastPathSupport {
  readonly enabled: boolean;
  readonly jsonataVersion: string;
  /** Why it is off, as a log line an operator can act on. */
  readonly reason?: string;
}

function installedJsonataVersion(): string {
  try {
    const main = require.resolve('jsonata');
    // The package's own package.json, found from its entry point (jsonata/package.json is not exported everywhere).
    for (let dir = path.dirname(main); dir !== path.dirname(dir); dir = path.dirname(dir)) {
      const file = path.join(dir, 'package.json');
      if (fs.existsSync(file)) {
        const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
        if (pkg.name === 'jsonata' && typeof pkg.version === 'string') return pkg.version;
      }
    }
  } catch {
    // fall through: an unknown version is treated as a different one
  }
  return 'unknown';
}

let checked: FastPathSupport | undefined;

/** Checked once, on first use (no work at import); `installed` lets a test try another version. */
export function fastPathSupport(installed?: string): FastPathSupport {
  if (installed === undefined && checked) return checked;
  const jsonataVersion = installed ?? installedJsonataVersion();
  const support: FastPathSupport = jsonataVersion === MIRRORED_JSONATA_VERSION
    ? { enabled: true, jsonataVersion }
    : { enabled: false, jsonataVersion, reason: `jsonata ${jsonataVersion} is installed but the fast path mirrors ${MIRRORED_JSONATA_VERSION}; every expression runs on the interpreter (correct, slower). Install jsonata@${MIRRORED_JSONATA_VERSION} to get it back.` };
  if (installed === undefined) checked = support;
  return support;
}
