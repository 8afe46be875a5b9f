import type { Engine } from '../core/engine';
import type { ErpProbe } from '../metrics/erp-probe';
import type { OutboxStore } from '../outbox/store';
import type { LoadAttempt, MappingFileState } from './mapping-source';

/**
 * What /health/ready says. Ready means: every mapping file has a mapping serving (the last good one
 * counts: a failed reload does not take a customer off the air) and every ERP that asks to be checked
 * answers. The details are for the operator who wants to know why not.
 */
interface MappingReadiness {
  readonly file: string;
  readonly mapping?: string;
  readonly serving: boolean;
  readonly loadedAt?: string;
  readonly lastReload: LoadAttempt;
  readonly inboundAuth: string;
  readonly erp?: ErpProbe;
  readonly warnings: readonly string[];
}

interface OutboxReadiness {
  readonly store: string;
  readonly pending?: number;
  readonly dead?: number;
  readonly oldestPendingAgeSeconds?: number;
  readonly warnings: readonly string[];
}

export interface Readiness {
  readonly ready: boolean;
  readonly mappings: readonly MappingReadiness[];
  readonly outbox?: OutboxReadiness;
}

/** An event waiting this long means the ERP has not taken events for a while: worth a look, not a reason to stop taking traffic. */
const OUTBOX_LAG_WARNING_SECONDS = 15 * 60;

async function outboxReadiness(store: OutboxStore): Promise<{ ready: boolean; detail: OutboxReadiness }> {
  try {
    const stats = await store.stats();
    const age = stats.oldestPendingAt === undefined ? 0 : Math.round((Date.now() - stats.oldestPendingAt) / 1000);
    const warnings = [
      ...(age > OUTBOX_LAG_WARNING_SECONDS ? [`the oldest pending outbox event is ${age} s old: the ERP has not taken events for a while`] : []),
      ...(stats.dead > 0 ? [`${stats.dead} outbox event(s) are dead and wait for support staff (adapter-engine outbox list --status dead)`] : []),
    ];
    return { ready: true, detail: { store: store.location, pending: stats.pending, dead: stats.dead, oldestPendingAgeSeconds: age, warnings } };
  } catch (error) {
    // Events could not be accepted: the platform would get failures, so this replica is not ready.
    return { ready: false, detail: { store: store.location, warnings: [`the outbox store cannot be read: ${(error as Error).message}`] } };
  }
}

/** True when the platform's port is reachable from other machines, where a mapping without inbound auth is an open door. */
export function isExposed(host: string | undefined): boolean {
  if (host === undefined || host === '') return true;
  return !(host === 'localhost' || host === '::1' || /^127\./.test(host));
}

export function unauthenticatedWarning(mapping: string, host: string | undefined): string {
  return `mapping "${mapping}" has no inbound auth and is served on ${host || 'all interfaces'}: anyone who can reach the port can read work orders and report events in the platform's name; declare inbound.auth in the mapping`;
}

export async function readiness(engine: Engine, states: readonly MappingFileState[], host: string | undefined, outbox?: OutboxStore): Promise<Readiness> {
  const mappings = await Promise.all(states.map(async (state): Promise<MappingReadiness> => {
    const { mapping } = state;
    const erp = mapping ? await engine.probeErp(mapping) : undefined;
    const authType = mapping?.inbound.auth.type ?? 'none';
    const warnings = mapping && authType === 'none' && isExposed(host) ? [unauthenticatedWarning(mapping.name, host)] : [];
    return { file: state.file, mapping: mapping?.name, serving: mapping !== undefined, loadedAt: state.loadedAt, lastReload: state.last, inboundAuth: authType, erp, warnings };
  }));
  const store = outbox ? await outboxReadiness(outbox) : undefined;
  const ready = mappings.length > 0 && mappings.every((entry) => entry.serving && (entry.erp?.reachable ?? true)) && (store?.ready ?? true);
  return { ready, mappings, ...(store ? { outbox: store.detail } : {}) };
}
