import { afterEach, describe, expect, it } from 'vitest';
import { buildProgram } from '../../engine/cli/main';
import { runCli, STACK_LINE, startServe, stoppedAfterEach, tempDir, writeFile } from './cli-process';

/** Reads ERP_URL twice and a required token once: unset, each must still be listed once. */
const MAPPING = `version: 1
name: plant
system:
  baseUrl: \${ERP_URL}
  auth: { type: bearer, token: "\${ERP_TOKEN:?ask the customer's IT for the API token}" }
  headers: { X-Origin: "\${ERP_URL}", X-Plant: "\${PLANT:-Berlin}" }
operations:
  GetItem:
    calls:
      - { name: article, method: GET, path: "/articles/{input.number}" }
    output: '{ "number": calls.article.body.no, "name": calls.article.body.text }'
`;
const ANSWERS = 'article: { status: 200, body: { no: A-1, text: Bolt } }\n';

function workspace(): { dir: string; mapping: string; answers: string } {
  const dir = tempDir();
  return { dir, mapping: writeFile(dir, 'plant.yaml', MAPPING), answers: writeFile(dir, 'answers.yaml', ANSWERS) };
}

const UNSET_WARNING = /plant\.yaml:(\d+):(\d+) {2}warning: environment variable (\w+) is not set/g;
const warningsIn = (text: string) => [...text.matchAll(UNSET_WARNING)].map((match) => `${match[1]}:${match[2]} ${match[3]}`);

describe('commands that send nothing work without the mapping\'s variables', () => {
  it('validate: each unset variable is one warning with file:line:col, exit 0', async () => {
    const { mapping } = workspace();
    const result = await runCli(['validate', mapping]);
    expect(result.code).toBe(0);
    expect(warningsIn(result.stdout)).toEqual(['4:12 ERP_URL', '5:33 ERP_TOKEN']);
    expect(result.stdout).toContain("ERP_TOKEN is not set: ask the customer's IT for the API token");
  });

  it('routes: lists the routes and warns about the unset variables on stderr', async () => {
    const { mapping } = workspace();
    const result = await runCli(['routes', mapping]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('1 mapped');
    expect(warningsIn(result.stderr)).toEqual(['4:12 ERP_URL', '5:33 ERP_TOKEN']);
  });

  it('dry-run --answers runs the operation; the unset URL stands in as unset.invalid', async () => {
    const { mapping, answers } = workspace();
    const result = await runCli(['dry-run', mapping, 'GET /Items/A-1', '--answers', answers, '--json']);
    expect(result.code).toBe(0);
    const trace = JSON.parse(result.stdout) as { steps: { step: string; url?: string; headers?: Record<string, string> }[]; envelope: { data: unknown } };
    expect(trace.envelope.data).toEqual({ number: 'A-1', name: 'Bolt' });
    const request = trace.steps.find((step) => step.step === 'request');
    expect(request?.url).toBe('http://unset.invalid/articles/A-1');
    expect(request?.headers).toMatchObject({ 'X-Origin': '${ERP_URL}', 'X-Plant': 'Berlin' });
    expect(warningsIn(result.stderr)).toEqual(['4:12 ERP_URL', '5:33 ERP_TOKEN']);
  });
});

describe('serve and calls to the ERP refuse to start without them', () => {
  const { running } = stoppedAfterEach(afterEach);

  it('serve: exit 1, every missing variable named at its place', async () => {
    const { mapping } = workspace();
    const result = await runCli(['serve', '--port', '0', mapping]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/plant\.yaml:4:12 {2}environment variable ERP_URL is not set; set it in the environment or in an --env-file/);
    expect(result.stderr).toMatch(/plant\.yaml:5:33 {2}environment variable ERP_TOKEN is not set: ask the customer's IT for the API token/);
    expect(result.stderr.match(/ERP_URL is not set/g)).toHaveLength(1);
    expect(result.stdout + result.stderr).not.toMatch(STACK_LINE);
  });

  it('dry-run without --answers (a live call): exit 1, every missing variable named', async () => {
    const { mapping } = workspace();
    const result = await runCli(['dry-run', mapping, 'GET /Items/A-1']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/plant\.yaml:4:12 {2}environment variable ERP_URL is not set/);
    expect(result.stderr).toMatch(/plant\.yaml:5:33 {2}environment variable ERP_TOKEN is not set/);
    expect(result.stdout).not.toContain('request');
  });

  it('serve starts when an --env-file gives them', async () => {
    const { dir, mapping } = workspace();
    const envFile = writeFile(dir, 'plant.env', '# the plant\'s ERP\nERP_URL=http://127.0.0.1:9/api\nERP_TOKEN="t0ken with spaces"\n');
    const serving = await startServe(['--env-file', envFile, mapping]);
    running.push(serving);
    const answer = await fetch(`${serving.urls[0]}/WorkOrders/WorkOrderExportColumns`);
    expect(await answer.json()).toMatchObject({ isResultSuccess: true });
  });
});

describe('--env-file FILE', () => {
  const ENV_FILE = 'ERP_URL=http://from-file.test/api\nERP_TOKEN=t0ken\nPLANT=Leipzig\n';
  const requestOf = async (env: Record<string, string>) => {
    const { dir, mapping, answers } = workspace();
    const result = await runCli(['dry-run', mapping, 'GET /Items/A-1', '--answers', answers, '--env-file', writeFile(dir, '.env', ENV_FILE), '--json'], { env });
    expect(result.code).toBe(0);
    return (JSON.parse(result.stdout) as { steps: { step: string; url?: string; headers?: Record<string, string> }[] }).steps.find((step) => step.step === 'request');
  };

  it('gives the mapping its variables', async () => {
    const { dir, mapping } = workspace();
    const result = await runCli(['validate', '--env-file', writeFile(dir, '.env', ENV_FILE), mapping]);
    expect(result.code).toBe(0);
    expect(warningsIn(result.stdout)).toEqual([]);
    expect(await requestOf({})).toMatchObject({ url: 'http://from-file.test/api/articles/A-1', headers: { 'X-Plant': 'Leipzig' } });
  });

  it('a variable set in the environment wins over the file', async () => {
    expect(await requestOf({ ERP_URL: 'http://from-env.test/api', PLANT: 'Halle' })).toMatchObject({ url: 'http://from-env.test/api/articles/A-1', headers: { 'X-Plant': 'Halle' } });
  });

  it('a missing file is a usage error (exit 2), also when run as the installed command', async () => {
    const { mapping } = workspace();
    for (const asInstalled of [false, true]) {
      const result = await runCli(['validate', '--env-file', 'no-such.env', mapping], { asInstalled });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('env file not found: no-such.env');
    }
  });

  it('every command takes it', async () => {
    type Program = Awaited<ReturnType<typeof buildProgram>>;
    const leaves = (command: Program): Program[] => (command.commands.length === 0 ? [command] : command.commands.flatMap(leaves));
    const commands = leaves(await buildProgram());
    expect(commands.length).toBeGreaterThan(6);
    for (const command of commands) expect(command.options.map((option) => option.long), command.name()).toContain('--env-file');
  });
});
