/**
 * The records behind the corpus's stand-in ERPs: orders, their lines and the products they name,
 * generated from a fixed seed (the same sizes give the same data, run after run). Each stand-in shapes
 * them as its ERP writes them (Odoo's many2one pairs and `false`, NAV's text elements, a REST ERP's
 * camelCase). The lines are numbered across orders in a shuffled order, as an ERP that numbers lines
 * as they are entered does, so a list of lines interleaves the orders and a per-order filter matters.
 */

interface CorpusProduct {
  readonly id: number;
  readonly code: string;
  readonly name: string;
  /** Odoo's unit names: Units, kg, m, L, Box. */
  readonly unit: string;
  readonly description: string | null;
}

interface CorpusOrder {
  readonly id: number;
  readonly number: string;
  readonly customer: string;
  readonly warehouse: string;
  /** YYYY-MM-DD HH:MM:SS, UTC. */
  readonly due: string;
  readonly promised: string | null;
  readonly reference: string | null;
  readonly note: string | null;
  readonly kind: 'outgoing' | 'incoming';
  readonly priority: number;
}

interface CorpusLine {
  readonly id: number;
  readonly orderId: number;
  readonly productId: number;
  readonly quantity: number;
  readonly sequence: number;
  /** The line's text; some carry a lot number ("… LOT-K4821"), some none. */
  readonly text: string | null;
  readonly cancelled: boolean;
}

export interface CorpusData {
  readonly orders: readonly CorpusOrder[];
  readonly lines: readonly CorpusLine[];
  readonly products: readonly CorpusProduct[];
}

const UNITS = ['Units', 'Units', 'Units', 'kg', 'm', 'L', 'Box'];
const WAREHOUSES = ['WH-MAIN', 'WH-NORTH', 'WH-SOUTH'];
const CUSTOMERS = ['Baumarkt Süd GmbH', 'Café "Zur Post"', 'Müller & Söhne', 'Nordwind AG', 'O\'Brien Tools Ltd'];
const NOUNS = ['Hex bolt', 'Washer', 'Cable tie', 'Safety gloves', 'Wood screw', 'Anchor', 'Hinge', 'Sealant', 'Pipe clamp', 'Drill bit'];

/** A small linear congruential generator: deterministic, no dependency. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const pad = (n: number) => String(n).padStart(2, '0');

export function corpusData(orderCount: number, productCount = 60): CorpusData {
  const next = random(41);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)];
  const products: CorpusProduct[] = Array.from({ length: productCount }, (_, i) => ({
    id: 500 + i * 3,
    code: `P-${String(1000 + i * 7)}`,
    name: `${NOUNS[i % NOUNS.length]} ${8 + (i % 13)} mm`,
    unit: UNITS[i % UNITS.length],
    description: i % 4 === 0 ? null : `${NOUNS[i % NOUNS.length]}, zinc plated, pack of ${10 * (1 + (i % 5))}`,
  }));
  const orders: CorpusOrder[] = [];
  const unnumbered: Omit<CorpusLine, 'id'>[] = [];
  for (let n = 0; n < orderCount; n++) {
    const id = 7000 + n * 11;
    const day = 1 + (n % 28);
    orders.push({
      id,
      number: `SO-${10001 + n}`,
      customer: pick(CUSTOMERS),
      warehouse: pick(WAREHOUSES),
      due: `2026-12-${pad(day)} ${pad(6 + (n % 12))}:${pad((n * 7) % 60)}:00`,
      promised: n % 3 === 0 ? null : `2026-12-${pad(Math.min(28, day + 2))} 16:00:00`,
      reference: n % 4 === 1 ? null : `PO-${4400 + n}`,
      note: n % 5 === 2 ? null : `Order ${n + 1} for the ${n % 2 === 0 ? 'workshop' : 'shop floor'}`,
      kind: n % 9 === 4 ? 'incoming' : 'outgoing',
      priority: n % 7 === 0 ? 1 : 5,
    });
    const count = 3 + Math.floor(next() * 9);
    for (let k = 0; k < count; k++) {
      const product = pick(products);
      const lot = next() < 0.3 ? ` LOT-${String.fromCharCode(65 + Math.floor(next() * 26))}${1000 + Math.floor(next() * 9000)}` : '';
      unnumbered.push({
        orderId: id,
        productId: product.id,
        quantity: 1 + Math.floor(next() * 48),
        // Entered out of order: the sequence, not the id, is the order of the lines.
        sequence: 10 * (1 + Math.floor(next() * 20)),
        text: next() < 0.15 ? null : `${product.name}${lot}`,
        cancelled: next() < 0.06,
      });
    }
  }
  // Lines numbered in the order they were "entered": shuffled across orders.
  const keyed = unnumbered.map((line) => ({ line, key: next() }));
  keyed.sort((a, b) => a.key - b.key);
  const lines = keyed.map(({ line }, i) => ({ id: 90000 + i, ...line }));
  return { orders, lines, products };
}
