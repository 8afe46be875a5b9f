import { compileExpression, DEFAULT_EXPRESSION_LIMITS, type CompiledExpression } from '../engine/expressions/compile';
import { whenFastFunctionsReady } from '../engine/expressions/fast-path/runtime';
import { workOrdersInput, WORK_ORDERS_FUNCTIONS, WORK_ORDERS_OUTPUT } from './lib/work-orders';

/**
 * Issue 41: a `GET /WorkOrders` output whose shared functions filter a separately fetched lines list per
 * order and look up a product per line (bench/lib/work-orders.ts), 41 orders × 7 lines over 60 products,
 * timed compiled (the default) and on the interpreter (where a filter inside a function put the whole
 * output before issue 41). Run: `npm run build && node dist/bench/shared-function-filter.bench.js`.
 */
const REPEATS = 40;

async function medianMs(expression: CompiledExpression, input: unknown): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < REPEATS; run++) {
    const started = performance.now();
    await expression.evaluate(input);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

async function main(): Promise<void> {
  await whenFastFunctionsReady();
  const input = workOrdersInput(41, 7, 60);
  const compiled = compileExpression(WORK_ORDERS_OUTPUT, DEFAULT_EXPRESSION_LIMITS, WORK_ORDERS_FUNCTIONS);
  const interpreter = compileExpression(WORK_ORDERS_OUTPUT, DEFAULT_EXPRESSION_LIMITS, WORK_ORDERS_FUNCTIONS, { fastPath: false });
  const same = JSON.stringify(await compiled.evaluate(input)) === JSON.stringify(await interpreter.evaluate(input));
  const fast = await medianMs(compiled, input);
  const slow = await medianMs(interpreter, input);
  process.stdout.write(`GET /WorkOrders output, filter and lookup in shared functions (41 orders, 287 lines, 60 products), median of ${REPEATS}:\n`);
  process.stdout.write(`  compiled    ${fast.toFixed(2)} ms (${compiled.explain().runs}, ${compiled.stats.fast} answers of ${compiled.stats.fast + compiled.stats.fallback})\n`);
  process.stdout.write(`  interpreter ${slow.toFixed(2)} ms (before issue 41 this output ran here)\n  ratio ${(slow / fast).toFixed(1)}×, same answer: ${same}\n`);
}

void main();
