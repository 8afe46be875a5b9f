import path from 'node:path';
import { MAPPINGS_DIR } from '../../engine/paths';
import type { Row, Skipped } from '../lib/report';

/** What every case gets: the run's sizes and the ERP the adapters talk to. */
export interface CaseContext {
  readonly quick: boolean;
  readonly erpUrl: string;
  /** Orders in the ERP besides the seed (500; fewer with --quick). */
  readonly erpOrders: number;
  /** Extra Node flags for the engine's process (e.g. --cpu-prof), never for the baseline's. */
  readonly engineNodeArgs: readonly string[];
  readonly log: (line: string) => void;
}

export interface CaseResult {
  readonly rows: Row[];
  readonly skipped: Skipped[];
}

export const EXAMPLE_MAPPING = path.join(MAPPINGS_DIR, 'example.yaml');

export function ratio(engine: number, baseline: number): number {
  return baseline === 0 ? Number.NaN : engine / baseline;
}
