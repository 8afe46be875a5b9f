import type { Engine } from '../engine/engine';
import type { ErpProbe } from '../engine/erp-probe';
import type { LoadAttempt, MappingFileState } from './mapping-source';

/**
 * What /health/ready says. Ready means: every mapping file has a mapping serving (the last good one
 * counts: a failed reload does not take a customer off the air) and every ERP that asks to be checked
 * answers. The details are for the operator who wants to know why not.
 */
export interface MappingReadiness {
  readonly file: string;
  readonly mapping?: string;
  readonly serving: boolean;
  readonly loadedAt?: string;
  readonly lastReload: LoadAttempt;
  readonly inboundAuth: string;
  readonly erp?: ErpProbe;
  readonly warnings: readonly string[];
}

export interface Readiness {
  readonly ready: boolean;
  readonly mappings: readonly MappingReadiness[];
}

/** True when the platform's port is reachable from other machines, where a mapping without inbound auth is an open door. */
export function isExposed(host: string | undefined): boolean {
  if (host === undefined || host === '') return true;
  return !(host === 'localhost' || host === '::1' || /^127\./.test(host));
}

export function unauthenticatedWarning(mapping: string, host: string | undefined): string {
  return `mapping "${mapping}" has no inbound auth and is served on ${host || 'all interfaces'}: anyone who can reach the port can read work orders and report events in the platform's name; declare inbound.auth in the mapping`;
}

export async function readiness(engine: Engine, states: readonly MappingFileState[], host: string | undefined): Promise<Readiness> {
  const mappings = await Promise.all(states.map(async (state): Promise<MappingReadiness> => {
    const { mapping } = state;
    const erp = mapping ? await engine.probeErp(mapping) : undefined;
    const authType = mapping?.inbound.auth.type ?? 'none';
    const warnings = mapping && authType === 'none' && isExposed(host) ? [unauthenticatedWarning(mapping.name, host)] : [];
    return { file: state.file, mapping: mapping?.name, serving: mapping !== undefined, loadedAt: state.loadedAt, lastReload: state.last, inboundAuth: authType, erp, warnings };
  }));
  const ready = mappings.length > 0 && mappings.every((entry) => entry.serving && (entry.erp?.reachable ?? true));
  return { ready, mappings };
}
