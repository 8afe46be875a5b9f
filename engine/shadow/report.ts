import type { JournalEntry, ShadowRun } from '../journal/journal-entry';
import type { JournalFilter, JournalSummary } from '../journal/store';

/**
 * The shadow report: the candidate runs whose answer was not the live one, newest first, read from the
 * journal (where the runner keeps them under `<name>~shadow`), with their field-level differences. The
 * counts of same / different / failed runs are the metric adapter_shadow_requests_total.
 */

/** The journal's mapping name of a candidate's runs: apart from the live requests', so `requests --mapping <name>` lists those alone. */
export function shadowKey(mapping: string): string {
  return `${mapping}~shadow`;
}

interface ShadowReportRow {
  readonly id: string;
  readonly at: number;
  readonly mapping: string;
  readonly operation: string;
  readonly path: string;
  /** The live answer's result, and the candidate's (NotRun when it failed before an answer). */
  readonly liveResult: string;
  readonly candidateResult: string;
  readonly run: ShadowRun;
}

export interface ShadowReport {
  readonly candidates: readonly { readonly mapping: string; readonly file: string }[];
  readonly runs: readonly ShadowReportRow[];
}

/** The report of the given mappings' candidates; `list` and `get` read the journal (a worker's, or all of them). */
export async function shadowReport(
  candidates: ShadowReport['candidates'],
  filter: JournalFilter,
  list: (filter: JournalFilter) => Promise<readonly JournalSummary[]>,
  get: (id: string) => Promise<JournalEntry | undefined>,
): Promise<ShadowReport> {
  const names = filter.mapping === undefined ? candidates.map((candidate) => candidate.mapping) : [filter.mapping];
  const summaries = (await Promise.all(names.map((name) => list({ ...filter, mapping: shadowKey(name) })))).flat();
  const newest = summaries.sort((a, b) => b.at - a.at).slice(0, filter.limit ?? 50);
  const runs: ShadowReportRow[] = [];
  for (const summary of newest) {
    const entry = await get(summary.id);
    if (!entry?.shadow) continue;
    runs.push({
      id: summary.id, at: summary.at, mapping: summary.mapping.replace(/~shadow$/, ''), operation: summary.operation, path: summary.path,
      liveResult: entry.shadow.liveResult, candidateResult: entry.result, run: entry.shadow,
    });
  }
  return { candidates, runs };
}
