import { HELPER_FUNCTIONS } from '../expressions/functions';
import { walkTree, type TreeNode } from './parse-tree';

/**
 * Whether a header's expression gives a new value on each attempt: it reads the request being sent
 * (`request.method`, `request.url`, `request.query`: a signature of its own over the final URL, page
 * parameters included) or calls a clock or a random source (a timestamp, a nonce). Such a header is
 * computed as each attempt goes out, not once per call, and it is no part of the answer cache's key:
 * a retry after a 429 must not send a nonce the ERP has seen, and a key holding a timestamp never hits.
 */

/** JSONata's built-ins and the engine's helpers ($uuid) whose result changes from one call to the next. */
const CHANGING: ReadonlySet<string> = new Set(['now', 'millis', 'random', ...HELPER_FUNCTIONS.filter((helper) => helper.varies).map((helper) => helper.name)]);

function readsRequest(node: TreeNode): boolean {
  if (node.type === 'name') return node.value === 'request';
  const steps = (node as { readonly steps?: readonly TreeNode[] }).steps;
  return node.type === 'path' && steps?.[0]?.type === 'name' && steps[0].value === 'request';
}

export function changesPerAttempt(tree: unknown): boolean {
  if (tree !== null && typeof tree === 'object' && readsRequest(tree as TreeNode)) return true;
  let changes = false;
  walkTree(tree, (node) => {
    if (node.type === 'path' && readsRequest(node)) changes = true;
    if ((node.type === 'function' || node.type === 'partial') && node.procedure?.type === 'variable' && CHANGING.has(String(node.procedure.value))) changes = true;
  });
  return changes;
}
