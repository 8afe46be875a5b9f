/**
 * The mapping's `functions:` as the prelude of each expression (see compileExpression for why they are
 * compiled in rather than shared). An expression gets only the functions it calls, directly or through
 * another function: a `when: response.status = 404` then neither parses nor evaluates the definitions of
 * every function on each request. `$eval` can reach any name from a string, so it gets them all.
 */
export interface FunctionDefinition {
  readonly name: string;
  /** The JSONata text of the function, `function($x) { ... }`. */
  readonly text: string;
}

const VARIABLE = /\$(\w+)/g;

function namesIn(text: string): Set<string> {
  return new Set([...text.matchAll(VARIABLE)].map((match) => match[1]));
}

export function createPrelude(definitions: readonly FunctionDefinition[]): (source: string) => string {
  const known = new Map(definitions.map((definition) => [definition.name, namesIn(definition.text)]));
  const cache = new Map<string, string>();
  return (source) => {
    const mentioned = namesIn(source);
    const wanted = new Set<string>();
    const pending = mentioned.has('eval') ? [...known.keys()] : [...mentioned].filter((name) => known.has(name));
    while (pending.length > 0) {
      const name = pending.pop() as string;
      if (wanted.has(name)) continue;
      wanted.add(name);
      for (const used of known.get(name) ?? []) if (known.has(used) && !wanted.has(used)) pending.push(used);
    }
    // Declaration order, so that the same set always gives the same text (and the cache hits).
    const chosen = definitions.filter((definition) => wanted.has(definition.name));
    const key = chosen.map((definition) => definition.name).join(',');
    let prelude = cache.get(key);
    if (prelude === undefined) {
      prelude = chosen.map((definition) => `$${definition.name} := ${definition.text};`).join('\n');
      cache.set(key, prelude);
    }
    return prelude;
  };
}
