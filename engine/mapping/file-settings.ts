import { DEFAULT_PROBLEM_LIMIT } from '../contract/schema-registry';

/**
 * The settings of a file block that the loader checks and the file intake (engine/files) applies:
 * declared here, in the mapping layer, so the loader never reaches into the intake's code.
 */

export const TEXT_ENCODINGS = ['auto', 'utf-8', 'utf-16', 'windows-1252'] as const;
export type TextEncoding = (typeof TEXT_ENCODINGS)[number];

/** Problems listed in one answer before the list ends with "and N more". */
export const DEFAULT_MAX_PROBLEMS = DEFAULT_PROBLEM_LIMIT;

export interface CsvOptions {
  /** One character, or 'auto' for `,` `;` or tab. */
  readonly delimiter: string;
  /** '' turns quoting off. */
  readonly quote: string;
  readonly escape: string;
  /** True: the first record names the columns; false: `names` does. */
  readonly header: boolean;
  readonly names?: readonly string[];
  readonly comment?: string;
  readonly trim: boolean;
  readonly skipEmptyLines: boolean;
  readonly allowRaggedRows: boolean;
  /** Accept quote characters inside unquoted fields (37°36'37.8"N) as text. */
  readonly relaxQuotes: boolean;
  readonly maxRecordChars: number;
}
