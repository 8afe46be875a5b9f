import { walkTree } from './parse-tree';

/**
 * The field names a mapping's expressions read, from their parse trees: what drift watching needs to
 * tell "a field the mapping reads went missing" from a field nobody reads coming and going. A name is a
 * path step (`body.no`, `body."due date"`) or a string (a `$lookup` key, a name compared with). Reading
 * an object reads its fields too (drift/shape.ts counts fields below a read one), so `$toJson(o.custom)`
 * watches all of `custom`. A wildcard (`*`, `**`) reads fields it does not name: then every field counts.
 * Keys computed at run time (`$lookup(o, $code)`, `$each`) are data, such as order numbers, not fields.
 */
export interface FieldsRead {
  readonly names: ReadonlySet<string>;
  /** An expression reads fields it does not name (a wildcard). */
  readonly every: boolean;
}

export class FieldsReadCollector implements FieldsRead {
  readonly names = new Set<string>();
  every = false;

  /** Adds what one expression's tree reads. */
  add(tree: unknown): void {
    walkTree(tree, (node) => {
      if ((node.type === 'name' || node.type === 'string') && typeof node.value === 'string') this.names.add(node.value);
      else if (node.type === 'wildcard' || node.type === 'descendant') this.every = true;
    });
  }
}
