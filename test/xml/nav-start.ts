import path from 'node:path';
import { loadMapping } from '../../engine/mapping/load';
import { PROJECT_ROOT } from '../../engine/paths';
import type { OutboxStore } from '../../engine/outbox/store';
import { startEngine, type RunningEngine } from '../support/engine';
import { startSoapErp, type SoapErp } from '../support/soap-erp';

/** examples/soap/nav.yaml served by the real engine against the NAV-style SOAP stand-in. */
export const NAV_MAPPING = path.join(PROJECT_ROOT, 'examples', 'soap', 'nav.yaml');

export interface NavRig {
  readonly erp: SoapErp;
  readonly engine: RunningEngine;
  close(): Promise<void>;
}

export async function startNav(outbox: OutboxStore | 'inline' = 'inline'): Promise<NavRig> {
  const erp = await startSoapErp();
  const engine = await startEngine(loadMapping(NAV_MAPPING, { env: { NAV_URL: erp.url } }).mapping, { outbox });
  return {
    erp,
    engine,
    close: async () => {
      await engine.close();
      await erp.close();
    },
  };
}
