import fs from 'node:fs';

/**
 * The bearer tokens the admin listener accepts: those of ADMIN_TOKENS (comma-separated) and of the file
 * named by ADMIN_TOKENS_FILE (separated by commas or lines; a mounted Secret, say). Several at once, so a
 * token is rotated without a gap: add the new one, move the clients, remove the old one. The file is
 * read again at each request that needs a token (a few a minute), so a rotation needs no restart.
 */
export interface AdminTokens {
  /** The tokens accepted now; none means every guarded endpoint answers 401. */
  current(): readonly string[];
  /** Where the tokens come from, for messages: "ADMIN_TOKENS", "ADMIN_TOKENS_FILE /run/secrets/admin". */
  readonly from: string;
}

const split = (text: string): string[] => text.split(/[,\r\n]/).map((token) => token.trim()).filter((token) => token !== '');

function readTokenFile(file: string): string[] {
  try {
    return split(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`ADMIN_TOKENS_FILE ${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

/** Throws when ADMIN_TOKENS_FILE names a file that cannot be read: `serve` reports it before it listens. */
export function adminTokensFrom(env: NodeJS.ProcessEnv): AdminTokens {
  const listed = split(env.ADMIN_TOKENS ?? '');
  const file = env.ADMIN_TOKENS_FILE || undefined;
  let fromFile = file === undefined ? [] : readTokenFile(file);
  const from = [...(env.ADMIN_TOKENS ? ['ADMIN_TOKENS'] : []), ...(file ? [`ADMIN_TOKENS_FILE ${file}`] : [])].join(' and ');
  return {
    from,
    current() {
      if (file !== undefined) {
        // A file being replaced may be missing for a moment: the tokens read last stay accepted.
        try {
          fromFile = readTokenFile(file);
        } catch {
          // kept
        }
      }
      return [...listed, ...fromFile];
    },
  };
}
