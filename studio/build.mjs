// Bundles the studio's page (studio/src) into dist/studio/ with esbuild: one script, one stylesheet,
// served by the engine itself (no CDN, works offline). Run by `npm run build`.
import { build } from 'esbuild';

await build({
  entryPoints: { app: 'studio/src/main.tsx' },
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  sourcemap: false,
  outdir: 'dist/studio',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  loader: { '.css': 'css' },
  logLevel: 'warning',
});
