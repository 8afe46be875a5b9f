import type { Mapping } from '../mapping/model';

/**
 * The mappings an engine serves right now, and which one a path belongs to. A reload builds a new set
 * and the engine swaps it in whole: a request picks its mapping once, when it starts, and keeps it to
 * the end, so requests in flight finish on the mapping they started with.
 */
export interface MappingSet {
  readonly mappings: readonly Mapping[];
  locate(path: string): { mapping: Mapping; rest: string } | { error: string };
}

function duplicateName(mappings: readonly Mapping[]): string | undefined {
  const names = mappings.map((mapping) => mapping.name.toLowerCase());
  const index = names.findIndex((name, at) => names.indexOf(name) !== at);
  return index < 0 ? undefined : mappings[index].name;
}

/** `prefixed`: each mapping under `/<name>`; otherwise the one mapping at the root. */
export function createMappingSet(mappings: readonly Mapping[], prefixed: boolean): MappingSet {
  const duplicate = duplicateName(mappings);
  if (duplicate !== undefined) throw new Error(`two mappings are named "${duplicate}"; each is served under /<name>, so names must differ`);
  if (!prefixed && mappings.length !== 1) throw new Error(`one mapping is served at the root, but ${mappings.length} were given; serve them under /<name> instead`);
  const byPrefix = new Map(mappings.map((mapping) => [`/${encodeURIComponent(mapping.name)}`.toLowerCase(), mapping]));
  // The list of mappings helps whoever typed a wrong prefix, but it names customers: not shown when any mapping requires credentials.
  const listed = mappings.every((mapping) => mapping.inbound.auth.type === 'none') ? `; this server has ${[...byPrefix.keys()].join(', ') || 'no mappings'}` : '';
  return {
    mappings,
    locate(path) {
      if (!prefixed) return { mapping: mappings[0], rest: path };
      const prefix = `/${path.split('/')[1] ?? ''}`;
      const mapping = byPrefix.get(prefix.toLowerCase());
      if (!mapping) return { error: `no mapping at ${prefix}${listed}` };
      return { mapping, rest: path.slice(prefix.length) || '/' };
    },
  };
}
