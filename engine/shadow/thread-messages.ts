import type { Envelope } from '../contract/envelope';
import type { CompileOptions } from '../expressions/compile';
import type { FieldChange } from '../testing/replay';
import type { CaseRun } from '../testing/run-case';
import type { TraceStep } from '../trace/steps';

/**
 * What the live thread and the shadow's thread (worker.ts) tell each other. Everything here crosses
 * by structured clone: plain data, no Mapping objects (the thread compiles its own from the same text).
 */

/** How the thread compiles candidates: as the served mappings are compiled. */
export interface ThreadSettings {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly compileOptions: CompileOptions;
}

/** A candidate as the thread compiles it: the very text the live thread compiled, and where it came from. */
export interface CandidateSource {
  readonly name: string;
  /** The file as shown in messages. */
  readonly file: string;
  readonly text: string;
  /** The directory relative paths of the mapping (TLS files) are read from. */
  readonly baseDir: string;
}

/** A live read request's answer, for its candidate to run on. */
export interface RunJob {
  readonly mapping: string;
  readonly operationId: string;
  readonly input: unknown;
  /** The live run's steps: the ERP answers the candidate gets. */
  readonly steps: readonly TraceStep[];
  readonly resultName: string;
  /** The live envelope, unmasked: compared as the platform got it. */
  readonly envelope: Envelope;
}

export type ToThread =
  | { readonly type: 'candidates'; readonly candidates: readonly CandidateSource[] }
  /**
   * `at`: when the live answer was sent (ms), the clock of the journal's one kept run a second per kind.
   * `job`: the RunJob as JSON text. Not by structured clone: the lists an expression makes carry a
   * function (the guarded push of the sequence limit), which cannot be cloned, and JSON is what the
   * platform got and what the journal keeps.
   */
  | { readonly type: 'run'; readonly id: number; readonly at: number; readonly job: string };

/** A run to keep in the journal: unmasked, as the engine made it (the journal masks what it keeps). */
export interface KeptRun {
  readonly differences: readonly FieldChange[];
  readonly reason?: string;
  readonly steps: readonly TraceStep[];
  readonly resultName?: string;
  readonly success: boolean;
  readonly failure?: CaseRun['failure'];
  readonly envelope?: Envelope;
  readonly durationMs: number;
}

export type ShadowOutcome = 'same' | 'different' | 'failed';

export type FromThread =
  /** `kept`: a KeptRun as JSON text (as a job is), only for the first run of its kind in its second; the others are counted, not kept. */
  | { readonly type: 'ran'; readonly id: number; readonly outcome: ShadowOutcome; readonly kept?: string }
  /**
   * What the live thread logs as an error: a candidate that did not compile here (never expected: the
   * same text and settings), a run that threw, a priority that could not be lowered.
   */
  | { readonly type: 'problem'; readonly message: string };
