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
  /** Checks one live answer; returns the marks for the request's journal entry (empty when it fits). */
  check(mapping: string, call: string, body: unknown): DriftMark[];
}

const HOUR_MS = 60 * 60 * 1000;

export function createDriftWatch(options: { readonly meter: Meter; readonly log: Logger; readonly now?: () => number; readonly sighted?: (sighting: DriftSighting) => void }): DriftWatch {
  const { meter, log, sighted } = options;
  const now = options.now ?? Date.now;
  const known = new Map<string, LearnedShapes>();
  const toTell = firstPerWindow(HOUR_MS, now);
  return {
    learned(mapping, learned) {
      if (learned.shapes.size === 0) known.delete(mapping);
      else known.set(mapping, learned);
    },
    check(mapping, call, body) {
      const learned = known.get(mapping);
      const shape = learned?.shapes.get(call);
      if (!learned || !shape) return [];
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
