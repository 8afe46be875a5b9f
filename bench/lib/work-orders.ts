/**
 * A `GET /WorkOrders` output as integrators write it for a JSON-RPC ERP whose orders, lines and products
 * come from separate calls (issue 41): shared functions, a filter per order over the lines list, a
 * lookup per line in the products list, a unit table as an object literal inside a function, `$error`
 * and a regular expression. engine/expressions/joins.test.ts checks it runs compiled with the interpreter's answer;
 * bench/shared-function-filter.bench.ts times it both ways.
 */
export const WORK_ORDERS_FUNCTIONS = [
  '$unit := function($code) { ( $table := { "PCE": "Piece", "KG": "Kilogram", "M": "Meter", "L": "Liter" }; $lookup($table, $code) ? $lookup($table, $code) : $error("unknown unit " & $code) ) };',
  '$product := function($products, $l) { $products[id = $l.product_id[0]] };',
  '$line := function($products, $l) { ( $p := $product($products, $l); { "itemNumber": $p.code, "itemName": $p.name, "requestedAmount": $l.qty, "unitOfMeasure": $unit($p.uom), "lot": $l.lot ? $replace($l.lot, /^LOT-/, "") : null } ) };',
  '$order := function($o, $lines, $products) { { "number": $o.name, "externalIdentifier": $string($o.id), "customer": $o.partner_id[1], "requests": [$lines[order_id[0] = $o.id].$line($products, $)] } };',
].join('\n');

export const WORK_ORDERS_OUTPUT = 'calls.orders.result.$order($, $$.calls.lines.result, $$.calls.products.result)';

/** `orders` orders of `linesPerOrder` lines each, over `products` products (deterministic). */
export function workOrdersInput(orders: number, linesPerOrder: number, products: number): unknown {
  const units = ['PCE', 'KG', 'M', 'L'];
  const productList = Array.from({ length: products }, (_, index) => ({ id: 500 + index, code: `A-${index}`, name: `Article ${index}`, uom: units[index % units.length] }));
  const orderList = Array.from({ length: orders }, (_, index) => ({ id: 9000 + index, name: `SO${1000 + index}`, partner_id: [70 + (index % 5), `Customer ${index % 5}`] }));
  const lines: unknown[] = [];
  for (let line = 0; line < orders * linesPerOrder; line++) {
    const order = orderList[(line * 7) % orders];
    lines.push({ id: line, order_id: [order.id, order.name], product_id: [500 + ((line * 13) % products), 'x'], qty: 1 + (line % 9), lot: line % 3 === 0 ? `LOT-${line}` : false });
  }
  return { calls: { orders: { result: orderList }, lines: { result: lines }, products: { result: productList } } };
}
