/**
 * The order file both file benchmarks send: the layout mappings/example.yaml reads for
 * POST /WorkOrders/File (examples/files/orders.csv), 5 lines per order, about 100 bytes per line.
 * Deterministic, so every child process builds the same file.
 */
export const ORDER_CSV_COLUMNS = ['orderNo', 'dueDate', 'customer', 'shipment', 'line', 'article', 'itemName', 'qty', 'unit', 'lot'] as const;

const UNITS = ['PCE', 'M', 'KG', 'L'];

export function orderCsv(lines: number): string {
  const rows = [ORDER_CSV_COLUMNS.join(';')];
  for (let i = 0; i < lines; i += 1) {
    const order = Math.floor(i / 5);
    const day = String(1 + (order % 28)).padStart(2, '0');
    const lot = i % 3 === 0 ? '' : `L-${i % 300}`;
    rows.push(`SO-${String(order).padStart(7, '0')};${day}.03.2027;Customer ${order % 977} GmbH;DN-${String(order).padStart(6, '0')};${10 * (1 + (i % 5))};A-${String(i % 5000).padStart(5, '0')};"Item ${i % 5000}, blue";${1 + (i % 50)};${UNITS[i % UNITS.length]};${lot}`);
  }
  return `${rows.join('\r\n')}\r\n`;
}
