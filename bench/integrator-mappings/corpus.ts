/**
 * The corpus of bench case 11 ("integrator mappings"): mappings written the way integrators write them
 * from docs/ alone, each with its stand-in ERP (a real HTTP server in this process, deterministic data)
 * and its hand-written TypeScript twin, which answers every request of `requests` byte for byte like
 * the engine (corpus.test.ts asserts it). bench/README.md, case 11, tells how the bench uses them.
 */
import path from 'node:path';
import { PROJECT_ROOT } from '../../engine/paths';
import { corpusData, type CorpusData } from './data';
import { startNavErp } from './erps/nav';
import { ODOO_KEY, startOdooErp } from './erps/odoo';
import { startRestErp } from './erps/rest';
import type { StandIn } from './erps/listen';
import { navTwin } from './twins/nav';
import { odooTwin } from './twins/odoo';
import { restTwin } from './twins/rest';
import type { PlatformRequest, Transport } from './twins/transport';

export interface CorpusRequest extends PlatformRequest {
  /** What the request is, in a test's name or a bench row. */
  readonly name: string;
}

export interface Twin {
  /** The envelope's JSON text, as the engine would send it. */
  handle(request: PlatformRequest): Promise<string>;
}

export interface CorpusMapping {
  /** Short name, used in the bench's row ids: `integrator.<name>.compiledShare`. */
  readonly name: string;
  readonly file: string;
  /** Orders in the ERP for the bench (the test uses fewer). */
  readonly benchOrders: number;
  start(orders: number): Promise<StandIn>;
  env(url: string): Record<string, string>;
  twin(transport: Transport, url: string): Twin;
  /** The route mix: the list, a code lookup (and one that misses), an event. */
  requests(data: CorpusData): CorpusRequest[];
}

const DIR = path.join(PROJECT_ROOT, 'bench', 'integrator-mappings');

/** The list, two code lookups (the first and the middle order), an unknown code, and a put-wall event. */
function routeMix(data: CorpusData): CorpusRequest[] {
  const first = data.orders[0].number;
  const middle = data.orders[Math.floor(data.orders.length / 2)].number;
  const event = (workOrderNumber: string) => ({
    workOrderNumber, itemNumber: 'P-1007', itemNames: [{ languageIsoCode: 'en', name: 'Washer' }, { languageIsoCode: 'de', name: 'Scheibe' }],
    completedAmount: 4, confirmedLocationName: ' pw-01-03 ', userEmail: 'sorter@example.com', externalData: null,
  });
  return [
    { name: 'GET /WorkOrders', method: 'GET', path: '/WorkOrders' },
    { name: 'GET /WorkOrders/Code', method: 'GET', path: '/WorkOrders/Code', query: { Code: first } },
    { name: 'GET /WorkOrders/Code, another order', method: 'GET', path: '/WorkOrders/Code', query: { Code: middle } },
    { name: 'GET /WorkOrders/Code, unknown', method: 'GET', path: '/WorkOrders/Code', query: { Code: 'SO-404' } },
    { name: 'POST /WorkOrders/ForPutWall', method: 'POST', path: '/WorkOrders/ForPutWall', body: event(first) },
    { name: 'POST /WorkOrders/ForPutWall, unknown order', method: 'POST', path: '/WorkOrders/ForPutWall', body: event('SO-404') },
  ];
}

export const CORPUS: readonly CorpusMapping[] = [
  {
    name: 'odoo',
    file: path.join(DIR, 'odoo-orders.yaml'),
    benchOrders: 40,
    start: startOdooErp,
    env: (url) => ({ ODOO_URL: url, ODOO_KEY }),
    twin: (transport) => odooTwin(transport, ODOO_KEY),
    requests: routeMix,
  },
  {
    name: 'nav',
    file: path.join(DIR, 'nav-orders.yaml'),
    benchOrders: 60,
    start: startNavErp,
    env: (url) => ({ NAV_URL: url }),
    twin: (transport) => navTwin(transport),
    requests: routeMix,
  },
  {
    name: 'rest',
    file: path.join(DIR, 'rest-orders.yaml'),
    benchOrders: 50,
    start: startRestErp,
    env: (url) => ({ REST_ERP_URL: url }),
    twin: (transport) => restTwin(transport),
    requests: routeMix,
  },
];

export { corpusData };
