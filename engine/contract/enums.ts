import { contractSchemaFile } from './schema-files';

/**
 * The contract's enums, read from schemas/contract/enums.schema.json, the one place they are declared.
 * Mapping authors use names (`$enumValue('UnitOfMeasure', 'Kilogram')`); the numbers stay here.
 */
export const ENUM_DEFINITIONS = {
  UnitOfMeasure: 'unitOfMeasure',
  RequestType: 'requestType',
  FileType: 'fileType',
  WorkOrderStatus: 'workOrderStatus',
} as const;

export type EnumName = keyof typeof ENUM_DEFINITIONS;

export interface ContractEnum {
  readonly byName: ReadonlyMap<string, number>;
  readonly byValue: ReadonlyMap<number, string>;
}

/** Derived from the immutable contract files (see schema-files.ts), so memoised like them. */
let cache: ReadonlyMap<EnumName, ContractEnum> | undefined;

export function contractEnums(): ReadonlyMap<EnumName, ContractEnum> {
  if (cache) return cache;
  const definitions = contractSchemaFile('enums.schema.json').definitions as Record<string, { enum: number[]; 'x-enumNames': string[] }>;
  const entries = (Object.keys(ENUM_DEFINITIONS) as EnumName[]).map((name): [EnumName, ContractEnum] => {
    const definition = definitions[ENUM_DEFINITIONS[name]];
    const names = definition['x-enumNames'];
    const pairs = definition.enum.map((value, index): [string, number] => [names[index], value]);
    return [name, { byName: new Map(pairs), byValue: new Map(pairs.map(([n, v]) => [v, n])) }];
  });
  cache = new Map(entries);
  return cache;
}
