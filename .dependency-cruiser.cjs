/**
 * The folders of engine/ depend one way (docs/architecture.md tells what each holds):
 *   xml ← contract ← expressions ← mapping ← {http, files} ← trace ← pipeline
 *   ← {journal, access, metrics, drift, delivery} ← pushes ← state ← core ← testing ← {shadow, studio} ← {server, cli, scripts}
 * engine/outbox/ (the event stores) stands alone: it knows events, not mappings. The journal's stores
 * know rows of JSON text; the journal module around them adds entries, traces and masking.
 * Within the middle layer the pipeline may use http and files; files and http use neither the pipeline
 * nor each other. engine/errors/, log.ts, paths.ts, sqlite-open.ts, postgres-open.ts, time-slices.ts and first-per-window.ts are base modules anyone may use (and
 * they use no folder); engine/index.ts is the public surface. engine/xml/ (reading and writing XML, SOAP
 * envelopes, bodyXml templates) is pure functions at the very bottom: it uses no other folder. examples/ is loaded only by the --example-erp path.
 */
const BELOW_CORE = ['xml', 'contract', 'expressions', 'mapping', 'http', 'files', 'outbox', 'trace', 'pipeline', 'journal', 'access', 'metrics', 'drift', 'delivery', 'pushes', 'state'];
const LAYERS = [
  ['xml', []],
  ['contract', []],
  ['expressions', ['contract']],
  ['mapping', ['contract', 'expressions', 'xml']],
  ['http', ['contract', 'expressions', 'mapping', 'xml']],
  ['files', ['contract', 'expressions', 'mapping']],
  ['outbox', []],
  ['trace', ['contract', 'expressions', 'mapping', 'http', 'xml']],
  ['pipeline', ['contract', 'expressions', 'mapping', 'http', 'files', 'trace', 'xml']],
  ['journal', ['contract', 'mapping', 'outbox', 'trace', 'xml']],
  ['access', ['mapping']],
  ['metrics', ['expressions', 'mapping', 'http', 'access']],
  // ERP drift: answer shapes and the live check (pure, with the meter).
  ['drift', ['metrics']],
  ['delivery', ['mapping', 'outbox', 'journal']],
  ['pushes', ['contract', 'expressions', 'mapping', 'http', 'outbox', 'trace', 'pipeline', 'access', 'metrics', 'delivery', 'xml']],
  ['state', ['outbox', 'journal']],
  ['core', BELOW_CORE.filter((folder) => folder !== 'state')],
  ['testing', [...BELOW_CORE, 'core']],
  // A shadow candidate replays a live request's ERP answers as a mapping test does; shapes are learned from the test files.
  ['shadow', [...BELOW_CORE, 'core', 'testing']],
  ['studio', [...BELOW_CORE, 'core', 'testing']],
  ['server', [...BELOW_CORE, 'core', 'studio', 'shadow']],
  ['cli', [...BELOW_CORE, 'core', 'testing', 'studio', 'shadow', 'server']],
  ['scripts', ['contract', 'expressions', 'mapping', 'http', 'files', 'pipeline', 'core', 'xml', 'testing']],
];
const FOLDERS = LAYERS.map(([name]) => name);

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'Modules must not depend on each other in a circle.', from: { pathNot: '\\.test\\.ts$' }, to: { circular: true } },
    ...LAYERS.map(([name, allowed]) => ({
      name: `layer-${name}`,
      severity: 'error',
      comment: `engine/${name} may depend only on: ${allowed.join(', ') || 'no other folder'} (and the base modules).`,
      from: { path: `^engine/${name}/`, pathNot: '\\.test\\.ts$' },
      to: { path: `^engine/(${FOLDERS.filter((folder) => folder !== name && !allowed.includes(folder)).join('|')})/` },
    })),
    {
      name: 'base-modules-stay-at-the-base',
      severity: 'error',
      comment: 'errors/, log.ts, paths.ts, sqlite-open.ts, postgres-open.ts, time-slices.ts and first-per-window.ts are used by every folder, so they use none.',
      from: { path: '^engine/(errors/|log\\.ts$|paths\\.ts$|sqlite-open\\.ts$|postgres-open\\.ts$|time-slices\\.ts$|first-per-window\\.ts$)' },
      to: { path: `^engine/(${FOLDERS.join('|')})/` },
    },
    {
      name: 'examples-only-through-example-erp',
      severity: 'error',
      comment: 'The published engine loads the example ERP only for --example-erp.',
      from: { path: '^engine/', pathNot: ['^engine/cli/example-erp\\.ts$', '\\.test\\.ts$'] },
      to: { path: '^examples/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^dist/|node_modules)' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
