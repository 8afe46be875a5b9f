import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BINARY, cliEnv, ROOT, tempDir } from '../cli/cli-process';

/** A folder with a copy of the example mapping and its tests under mappings/: the studio writes to the files. */
export function exampleCopy(): string {
  const dir = tempDir();
  fs.mkdirSync(path.join(dir, 'mappings'));
  for (const name of ['example.yaml', 'example.test.yaml']) fs.copyFileSync(path.join(ROOT, 'mappings', name), path.join(dir, 'mappings', name));
  return dir;
}

/** The arguments of the studio command docs/studio.md shows first: the test runs what the guide says. */
export function documentedStudioArgs(): string[] {
  const guide = fs.readFileSync(path.join(ROOT, 'docs', 'studio.md'), 'utf8');
  const line = /^npx adapter-engine studio (.*)$/m.exec(guide)?.[1];
  if (line === undefined) throw new Error('docs/studio.md shows no "npx adapter-engine studio" command');
  return line.trim().split(/\s+/);
}

export interface Studio {
  readonly url: string;
  /** The page's origin, e.g. http://127.0.0.1:41234. */
  readonly origin: string;
  readonly child: ChildProcessWithoutNullStreams;
  stop(): Promise<void>;
}

/** Starts the real `adapter-engine studio` (in `cwd`, which names the files) and resolves with the URL it printed. */
export function startStudio(args: readonly string[], cwd = ROOT, env: Record<string, string> = {}): Promise<Studio> {
  const child = spawn(process.execPath, ['--', BINARY, 'studio', ...args], { cwd, env: cliEnv(env) });
  let output = '';
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = /studio on (\S+)/.exec(output)?.[1];
      if (url) resolve({ url, origin: new URL(url).origin, child, stop: async () => { child.kill('SIGTERM'); await exited; } });
    });
    void exited.then(() => reject(new Error(`studio exited before listening:\n${output}`)));
  });
}

/** The session token the page got (its meta tag). */
export async function sessionToken(studio: Studio): Promise<string> {
  const html = await (await fetch(studio.url)).text();
  const token = /name="studio-token" content="([^"]+)"/.exec(html)?.[1];
  if (!token) throw new Error(`no token in the page:\n${html}`);
  return token;
}
