import fs from 'node:fs';
import { checkMappingFile, type CheckResult } from '../mapping/load';
import type { Mapping } from '../mapping/model';
import type { MappingIssue } from '../errors';
import type { UnsetVariables } from '../mapping/yaml-source';
import { err, issueLine } from './output';
import { usageError } from './usage';
import { displayName } from '../mapping/yaml-file';

/**
 * Loads a mapping for a command exactly as `serve` does; a missing file is a usage error (exit 2).
 * `unsetVariables: 'warning'` for commands that send nothing to the ERP: they work without its secrets.
 */
function checkMapping(filePath: string, env: NodeJS.ProcessEnv, unsetVariables: UnsetVariables = 'error'): CheckResult {
  if (!fs.existsSync(filePath)) usageError(`mapping file not found: ${filePath}`);
  return checkMappingFile(filePath, { env, displayName: displayName(filePath), unsetVariables });
}

/** Prints a mapping's errors to stderr, and how to see them again. */
function reportErrors(filePath: string, result: CheckResult): void {
  for (const issue of result.issues) err.line(issueLine(issue, err.colors));
  const errors = result.issues.filter((issue) => issue.severity === 'error').length;
  err.line(`${displayName(filePath)}: ${errors} error(s); run "adapter-engine validate ${displayName(filePath)}" after fixing them`);
}

/**
 * The mapping, or undefined after printing every error to stderr (the command then exits 1). Unset
 * variables, when they are warnings, are printed to stderr too: the output then shows their `${...}` text.
 */
export function loadOrReport(filePath: string, env: NodeJS.ProcessEnv, unsetVariables: UnsetVariables = 'error'): Mapping | undefined {
  const result = checkMapping(filePath, env, unsetVariables);
  if (result.mapping) {
    for (const issue of result.issues) if (issue.code === 'ENV_UNSET') err.line(issueLine(issue, err.colors));
    return result.mapping;
  }
  reportErrors(filePath, result);
  return undefined;
}

/**
 * For a replay on recorded answers (diff), which sends nothing: the mapping with its unset variables
 * as warnings, handed back for the command to mention once; errors are printed as loadOrReport does.
 */
export function loadForReplay(filePath: string, env: NodeJS.ProcessEnv): { mapping?: Mapping; unset: readonly MappingIssue[] } {
  const result = checkMapping(filePath, env, 'warning');
  if (!result.mapping) reportErrors(filePath, result);
  return { mapping: result.mapping, unset: result.issues.filter((issue) => issue.code === 'ENV_UNSET') };
}
