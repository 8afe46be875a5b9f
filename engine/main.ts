import path from 'node:path';
import { startErp } from '../examples/erp';
import { formatIssue, MappingLoadError } from './errors';
import { createLogger } from './log';
import { loadMapping } from './mapping/load';
import { MAPPINGS_DIR } from './paths';
import { createApp } from './server/app';

/**
 * `npm start`: the example ERP and the engine with the example mapping, ready to call with no set-up.
 * ERP_URL, when set, points the engine at another ERP and the example ERP is not started.
 */
async function main(): Promise<void> {
  const log = createLogger();
  const port = Number(process.env.PORT ?? 8080);
  let erpUrl = process.env.ERP_URL;
  if (!erpUrl) {
    const erp = await startErp({ port: Number(process.env.ERP_PORT ?? 8081) });
    erpUrl = erp.url;
    console.log(`example ERP listening on ${erp.url}`);
  }
  const mappingFile = process.env.MAPPING_FILE ?? path.join(MAPPINGS_DIR, 'example.yaml');
  const { mapping } = loadMapping(mappingFile, { env: { ...process.env, ERP_URL: erpUrl } });
  const app = createApp({ mapping, log });
  const server = app.koa.listen(port, () => {
    console.log(`adapter engine (mapping "${mapping.name}") listening on http://localhost:${port}`);
  });
  const stop = () => {
    server.close();
    app.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  if (error instanceof MappingLoadError) {
    for (const issue of error.issues) console.error(formatIssue(issue));
  } else {
    console.error(error);
  }
  process.exit(1);
});
