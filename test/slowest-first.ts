import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, longest first, from quiet runs. vitest starts the files it has timings
 * for longest first, but a clean clone (CI) has none, and then it starts the largest files first: a long
 * but short-texted file (bench-quick: 30 s, 19th by size) could start last and leave one of the two
 * workers idle to the end. A file missing from this list only loses that head start.
 */
const SLOWEST = [
  'engine/expressions/guarded-builtins.test.ts',
  'bench/bench-quick.test.ts',
  'engine/expressions/fast-path.test.ts',
  'test/hostile-expressions/corpus-serve.test.ts',
  'test/cli/diff.test.ts',
  'test/hostile-expressions/corpus.test.ts',
  'test/cli/outbox-try-first.test.ts',
  'test/docs/doctests.test.ts',
  'engine/expressions/codegen-suite.test.ts',
  'test/changes/drift-postgres.test.ts',
  'test/changes/shadow.test.ts',
  'test/faults/csv-problems.test.ts',
  'test/changes/drift.test.ts',
  'test/journal/journal-promise.test.ts',
];

/** vitest's own order (timings of earlier runs, else size), with the files above moved to the front. */
export class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const place = SLOWEST.indexOf(relative(spec.project.config.root, spec.moduleId));
      return place === -1 ? SLOWEST.length : place;
    };
    return ordered.map((spec, index) => ({ spec, index })).sort((a, b) => rank(a.spec) - rank(b.spec) || a.index - b.index).map(({ spec }) => spec);
  }
}
