import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../cli/cli-process';
import { printed, shownPattern } from './doctest';
import { blocksOf, commandOf, type Block } from './markdown';

/**
 * The tutorial, followed as a reader does in a fresh directory: its commands in order, the edits it
 * shows applied where it shows them, the outputs it shows compared with what the commands print
 * (stdout and stderr; the placeholders of test/docs/doctest.ts, such as a line `…`, as there).
 */
const TUTORIAL = 'docs/tutorial.md';
const blocks = blocksOf(TUTORIAL);

interface Step {
  readonly args: string[];
  readonly env: Record<string, string>;
  readonly line: number;
  /** The output block right after the command's block, when there is one. */
  readonly shown?: string;
}

function stepsOf(block: Block, next: Block | undefined): Step[] {
  return block.text.split('\n').map((line) => line.trim()).filter((line) => /^([A-Z_]+=\S+\s+)*npx adapter-engine /.test(line))
    .map((line) => ({ ...commandOf(line), line: block.line, shown: next?.lang === 'text' ? next.text : undefined }));
}

const runnable = blocks.flatMap((block, index) => (block.lang === 'sh' && !/^# (needs a running engine|long-running)/.test(block.text) ? stepsOf(block, blocks[index + 1]) : []));
const editAt = blocks.find((block) => block.lang === 'yaml' && /^version:/m.test(block.text));
const testsAt = blocks.find((block) => block.lang === 'yaml-test');

describe('the tutorial, step by step', () => {
  it('shows output only under a block of one command: each command its own output', () => {
    const shownAfter = runnable.filter((step) => step.shown !== undefined);
    expect(shownAfter.length).toBeGreaterThanOrEqual(3);
    for (const step of shownAfter) expect(runnable.filter((other) => other.line === step.line), `${TUTORIAL}:${step.line}`).toHaveLength(1);
  });

  it('starts from init, and every step runs as shown', async () => {
    expect(editAt && testsAt, 'the tutorial shows the edited mapping and its tests').toBeTruthy();
    expect(runnable[0].args.slice(0, 1)).toEqual(['init']);
    // A checkout: the bundled example beside the new mapping (the dry-run step uses it).
    const dir = tempDir();
    fs.cpSync(path.join(ROOT, 'mappings'), path.join(dir, 'mappings'), { recursive: true });
    const before = runnable.filter((step) => step.line < editAt!.line);
    const after = runnable.filter((step) => step.line > editAt!.line);
    expect(before.map((step) => step.args[0])).toEqual(['init', 'test']);

    // Each command the tutorial shows output for prints that output: exit status, then every line shown.
    const run = async (step: Step) => {
      const result = await runCli(step.args, { cwd: dir, env: step.env });
      const where = `${TUTORIAL}:${step.line} npx adapter-engine ${step.args.join(' ')}`;
      expect(result.code, `${where}\n${result.stdout}${result.stderr}`).toBe(0);
      const output = printed(result.stdout + result.stderr);
      if (step.shown !== undefined && !shownPattern(step.shown).test(output)) expect(output, where).toBe(printed(step.shown));
      return result;
    };

    // Step 1: init writes both files, validates them as shown, and its own tests pass.
    await run(before[0]);
    const initTests = await run(before[1]);
    expect(initTests.stdout).toMatch(/ok {2}19 passed, 0 failed/);

    // Steps 2 and 5: the reader's edits, as the tutorial shows them.
    fs.writeFileSync(path.join(dir, 'mappings', 'acme.yaml'), editAt!.text);
    fs.writeFileSync(path.join(dir, 'mappings', 'acme.test.yaml'), testsAt!.text);

    // Steps 3 to 5: every command succeeds and prints what the tutorial shows after it.
    expect(after.map((step) => step.args[0])).toEqual(expect.arrayContaining(['validate', 'routes', 'dry-run', 'test']));
    expect(after.filter((step) => step.args[0] === 'validate' && step.shown !== undefined)).toHaveLength(2);
    for (const step of after) await run(step);
  }, 240_000);
});
