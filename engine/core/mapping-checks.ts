import type { Logger } from '../log';
import type { Mapping } from '../mapping/model';

/**
 * What createEngine checks of the mappings it is given, at the start and on each reload: a mapping that
 * needs the outbox has a store, and TLS checking turned off is said loudly.
 */

export function requireStore(hasOutbox: boolean, mappings: readonly Mapping[]): void {
  if (hasOutbox) return;
  for (const mapping of mappings) {
    for (const operation of mapping.operations.values()) {
      if (operation.mode === 'flow' && operation.outbox) throw new Error(`mapping "${mapping.name}" delivers ${operation.route.operationId} through the outbox, but the engine has no outbox store (serve: --state-dir or DATABASE_URL)`);
    }
    if (mapping.pushes.size > 0) throw new Error(`mapping "${mapping.name}" has push endpoints, delivered through the outbox, but the engine has no outbox store (serve: --state-dir or DATABASE_URL)`);
  }
}

export function warnInsecure(log: Logger, mappings: readonly Mapping[]): void {
  for (const mapping of mappings) {
    if (mapping.system.tls?.insecureSkipVerify) {
      log.warn({ mapping: mapping.name, setting: 'system.tls.insecureSkipVerify' }, 'TLS certificate checking toward the ERP is OFF: anyone on the network path can read and change the traffic, credentials included');
    }
    if (mapping.platform?.tls?.insecureSkipVerify) {
      log.warn({ mapping: mapping.name, setting: 'platform.tls.insecureSkipVerify' }, 'TLS certificate checking toward the platform is OFF: anyone on the network path can read and change the traffic, credentials included');
    }
  }
}
