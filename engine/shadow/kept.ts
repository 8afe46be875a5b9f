import type { JournalEntry, ShadowRun } from '../journal/journal-entry';
import { createMasker, declaredSecretNames, type Masker } from '../mapping/mask';
import type { Mapping } from '../mapping/model';
import { shadowKey } from './report';
import type { KeptRun, ShadowOutcome } from './thread-messages';

/**
 * A candidate's run as the journal keeps it: under `<name>~shadow`, beside the live request it ran on,
 * masked with both versions' secrets (the old values are the live answer's, the new the candidate's:
 * with the candidate's secrets alone, a live secret in the recorded answers was kept unmasked).
 */

/** What the live thread holds of a run until it comes back from the thread. */
export interface RunOf {
  readonly candidate: Mapping;
  readonly live: Mapping;
  readonly operation: string;
  readonly entry: JournalEntry;
}

function bothMasked(live: Mapping, candidate: Mapping): Masker {
  const [a, b] = [live, candidate].map((version) => declaredSecretNames(version.system, version.platform));
  return createMasker([...live.secretValues, ...candidate.secretValues], { headers: [...a.headers, ...b.headers], query: [...a.query, ...b.query] });
}

/** One masker per pair of loaded versions (a reload makes new Mapping objects). */
export function maskersOfPairs(): (live: Mapping, candidate: Mapping) => Masker {
  const masks = new WeakMap<Mapping, { readonly live: Mapping; readonly mask: Masker }>();
  return (live, candidate) => {
    const known = masks.get(candidate);
    if (known?.live === live) return known.mask;
    const mask = bothMasked(live, candidate);
    masks.set(candidate, { live, mask });
    return mask;
  };
}

export function keptEntry(run: RunOf, outcome: ShadowOutcome, kept: KeptRun): JournalEntry {
  const shadow: ShadowRun = { live: run.entry.id, outcome: outcome === 'failed' ? 'failed' : 'different', liveResult: run.entry.result, differences: kept.differences, ...(kept.reason === undefined ? {} : { reason: kept.reason }) };
  return {
    ...run.entry,
    id: `${run.entry.id}.shadow`,
    at: new Date().toISOString(),
    mapping: shadowKey(run.live.name),
    file: run.candidate.file,
    steps: [...kept.steps],
    rulesMatched: [],
    result: kept.resultName ?? 'NotRun',
    success: kept.success,
    failure: kept.failure,
    envelope: kept.envelope,
    durationMs: kept.durationMs,
    shadow,
  };
}
