import { OperationFailure, type Problem } from '../errors';

/**
 * The problems found in one uploaded file. The operator should fix the file in one go, so checks keep
 * going after the first problem; the cap keeps a file that is wrong on every row from producing an
 * answer larger than the file itself. Everything past the cap is only counted.
 */
import { DEFAULT_MAX_PROBLEMS } from '../mapping/file-settings';

;

export class FileProblems {
  private readonly kept: Problem[] = [];
  private total = 0;

  constructor(private readonly cap: number = DEFAULT_MAX_PROBLEMS) {}

  /** `where` is the place an operator looks at (`row 17, column qty`, `$[3].number`); empty for the whole file. */
  add(where: string, what: string): void {
    this.total += 1;
    if (this.kept.length < this.cap) this.kept.push({ path: where, message: where ? `${where}: ${what}` : what });
  }

  /** Counts problems found but not described (a capped contract check says only how many there were). */
  addUnlisted(count: number): void {
    this.total += count;
  }

  /** How many more problems the list has room for. */
  get room(): number {
    return this.cap - this.kept.length;
  }

  get count(): number {
    return this.total;
  }

  get full(): boolean {
    return this.total >= this.cap;
  }

  list(): Problem[] {
    if (this.total <= this.kept.length) return [...this.kept];
    const more = this.total - this.kept.length;
    return [...this.kept, { path: '', message: `… and ${more} more problem(s) not listed; the first ${this.kept.length} are shown` }];
  }

  /** Throws the collected problems as one InvalidInput failure; does nothing when the file is clean. */
  throwIfAny(): void {
    if (this.total === 0) return;
    throw new OperationFailure('FILE_INVALID', `the file has ${this.total} problem(s); first: ${this.kept[0].message}`, this.list());
  }
}

/** One problem that makes the rest of the file unreadable (not Base64, unclosed quote, too large). */
export function fileInvalid(where: string, what: string): OperationFailure {
  const problems = new FileProblems(1);
  problems.add(where, what);
  return new OperationFailure('FILE_INVALID', problems.list()[0].message, problems.list());
}
