/**
 * The first of each kind in a window of time: what is told or kept once per window and kind, however
 * often it happens (drift logged once an hour per mapping, call and kind; a shadow candidate's
 * differing run kept once a second per kind of difference). A base module: every folder may use it.
 * `limit`: kinds remembered at most; beyond it the memory starts again, so a kind may then pass twice
 * in one window. Without it, every kind is remembered (for kinds bounded by the mappings themselves).
 */
export function firstPerWindow(windowMs: number, now: () => number, limit = Infinity): (kind: string) => boolean {
  const passedAt = new Map<string, number>();
  return (kind) => {
    const at = now();
    if (at - (passedAt.get(kind) ?? -Infinity) < windowMs) return false;
    if (passedAt.size >= limit) passedAt.clear();
    passedAt.set(kind, at);
    return true;
  };
}
