import type { Mapping } from '../mapping/model';

/**
 * The largest request body the engine accepts from the platform. Contract bodies are small, but export
 * ranges can be large, so the floor is generous; a mapping whose file routes accept larger files raises
 * it, because an uploaded file arrives as Base64 (4/3 of its size) inside the JSON envelope. The limit
 * follows the mappings, so no layer refuses what the mapping allows.
 */
export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024 * 1024;
/** Room for the envelope's other fields (file name, type) around the Base64 text. */
const ENVELOPE_ROOM_BYTES = 64 * 1024;

export function requestBodyLimit(mappings: readonly Mapping[]): number {
  let limit = DEFAULT_BODY_LIMIT_BYTES;
  for (const mapping of mappings) {
    for (const operation of mapping.operations.values()) {
      if (operation.mode === 'file') limit = Math.max(limit, Math.ceil(operation.maxFileBytes / 3) * 4 + ENVELOPE_ROOM_BYTES);
    }
  }
  return limit;
}
