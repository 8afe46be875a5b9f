import fs from 'node:fs';
import path from 'node:path';
import { contractEnums } from '../contract/enums';
import type { RouteSpec } from '../contract/routes';
import { usageError } from './usage';

/**
 * `dry-run --file PATH` for the file routes (POST /WorkOrders/File, POST /Items/File): the platform sends
 * `{ fileContent: <Base64 of the bytes>, fileType }`; this builds that body from a file on disk, so an
 * integrator tries a customer's export without Base64-encoding it by hand. The type comes from --input
 * (`{"fileType": 1}`) or else from the extension (.csv, .json).
 */
export function isFileRoute(route: RouteSpec): boolean {
  return typeof route.inputSchema?.$ref === 'string' && route.inputSchema.$ref.endsWith('/file-request.schema.json');
}

export function fileUploadInput(route: RouteSpec, filePath: string, given: unknown): Record<string, unknown> {
  if (!isFileRoute(route)) return usageError(`--file is for the file routes (POST /WorkOrders/File, POST /Items/File); ${route.operationId} takes ${route.inputSource === 'body' ? 'a JSON body: use --input or --input-file' : 'parameters: use --input'}`);
  if (given !== undefined && (typeof given !== 'object' || given === null || Array.isArray(given))) return usageError('with --file, --input may only add fields to the body, e.g. \'{"fileType": 1}\'');
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(filePath);
  } catch (error) {
    return usageError(`cannot read ${filePath}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const fields = { ...(given as Record<string, unknown> | undefined) };
  if (fields.fileType === undefined) {
    const byExtension: Record<string, string> = { '.csv': 'CSV', '.json': 'JSON' };
    const name = byExtension[path.extname(filePath).toLowerCase()];
    if (!name) return usageError(`cannot tell the file type of ${filePath} from its extension (.csv or .json); give it with --input '{"fileType": 1}' (0 JSON, 1 CSV)`);
    fields.fileType = contractEnums().get('FileType')?.byName.get(name);
  }
  return { ...fields, fileContent: bytes.toString('base64') };
}
