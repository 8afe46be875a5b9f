import { firstPerWindow } from '../first-per-window';
import type { Logger } from '../log';
import type { Meter } from '../metrics/meter';
import { departures, type Departure, type DriftKind, type Shape } from './shape';

/**
 * Watches a served mapping's live ERP answers for drift from the shapes its recorded answers taught
 * (shapes-from-tests.ts learns them at load). Each answer that departs is counted once per kind, the
 * first departure of each (mapping, call, kind) is logged once an hour and reported to `sighted` (which
 * keeps it with its date for `adapter-engine test`), and the request's journal entry is marked. A
 * request is never failed for drift: the answer may still serve, and the mapping decides that.
 */

/** A departure as a journal entry is marked with it. */
export interface DriftMark extends Departure {
  readonly call: string;
}

export interface DriftSighting extends DriftMark {
  readonly mapping: string;
  /** ISO 8601. */
  readonly at: string;
}

export interface LearnedShapes {
  readonly shapes: ReadonlyMap<string, Shape>;
  /** Whether the mapping reads a field of this name; undefined: it may read any (a missing field always counts). */
  readonly reads?: (key: string) => boolean;
}

export interface DriftWatch {
  /**
   * The shapes of a mapping's calls, by call name, and the fields its expressions read (a missing field
   * counts only when read); a reload replaces them (an empty map forgets them).
   */
  learned(mapping: string, learned: LearnedShapes): void;
  /**
   * Checks one live answer (at most DRIFT_CHECKS_PER_SECOND of a call a second; the others pass
   * unchecked); returns the marks for the request's journal entry (empty when it fits or was not checked).
   */
  check(mapping: string, call: string, body: unknown): DriftMark[];
}

const HOUR_MS = 60 * 60 * 1000;

/**
 * Answers of one call checked per second at most. Drift is a property of the ERP, not of one request:
 * a few answers a second find it as surely as every answer does, and under load the check's cost stays
 * fixed instead of growing with the traffic (it was a sixth of a request's CPU in the soak mix). Below
 * this rate every answer is checked, counted and marked.
 */
export const DRIFT_CHECKS_PER_SECOND = 10;

/** Whether one more answer of this kind may be checked in the current second. */
function checksPerSecond(limit: number, now: () => number): (key: string) => boolean {
  const windows = new Map<string, { start: number; count: number }>();
  return (key) => {
    const at = now();
    const window = windows.get(key);
    if (!window || at - window.start >= 1000) {
      windows.set(key, { start: at, count: 1 });
      return true;
    }
    window.count += 1;
    return window.count <= limit;
  };
}

export function createDriftWatch(options: { readonly meter: Meter; readonly log: Logger; readonly now?: () => number; readonly sighted?: (sighting: DriftSighting) => void; readonly checksPerSecond?: number }): DriftWatch {
  const { meter, log, sighted } = options;
  const now = options.now ?? Date.now;
  const known = new Map<string, LearnedShapes>();
  const toTell = firstPerWindow(HOUR_MS, now);
  // Keys are bounded by the mappings' calls: a reload's calls add to them, never a request's input.
  const checking = checksPerSecond(options.checksPerSecond ?? DRIFT_CHECKS_PER_SECOND, now);
  return {
    learned(mapping, learned) {
      if (learned.shapes.size === 0) known.delete(mapping);
      else known.set(mapping, learned);
    },
    check(mapping, call, body) {
      const learned = known.get(mapping);
      const shape = learned?.shapes.get(call);
      if (!learned || !shape || !checking(`${mapping}\n${call}`)) return [];
      const found = departures(shape, body, learned.reads);
      if (found.length === 0) return [];
      const firstOfKind = new Map<DriftKind, Departure>();
      for (const departure of found) if (!firstOfKind.has(departure.kind)) firstOfKind.set(departure.kind, departure);
      for (const [kind, departure] of firstOfKind) {
        meter.drift({ mapping, call, kind });
        if (!toTell(`${mapping}\n${call}\n${kind}`)) continue;
        const others = found.filter((one) => one.kind === kind).length - 1;
        log.warn({ mapping, call, drift: kind, path: departure.path, expected: departure.expected, got: departure.got, others },
          `the ERP's answer to ${call} departs from its recorded answers (${kind} at ${departure.path}); logged once an hour per kind: refresh the recordings with adapter-engine record if the ERP changed`);
        sighted?.({ mapping, call, ...departure, at: new Date(now()).toISOString() });
      }
      return found.map((departure) => ({ call, ...departure }));
    },
  };
}
