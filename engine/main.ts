import path from 'node:path';
import { runCli } from './cli/main';
import { MAPPINGS_DIR } from './paths';

/**
 * Kept so `node dist/engine/main.js` still starts the demo: it is `adapter-engine serve --example-erp`
 * (one implementation, in engine/cli/serve.ts). MAPPING_FILE picks another mapping.
 */
void runCli(['serve', '--example-erp', process.env.MAPPING_FILE ?? path.join(MAPPINGS_DIR, 'example.yaml')]).then((code) => {
  process.exitCode = code;
});
