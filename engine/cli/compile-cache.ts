import module from 'node:module';
import path from 'node:path';

/**
 * V8's compiled code of the engine's modules and its dependencies', kept on disk between starts
 * (Node's module.enableCompileCache): compiling the ~1,000 module files is a fifth of `serve`'s start.
 * Imported first by main.ts, for its side effect, because it only helps modules loaded after it; only
 * when main.js is the program (tests that import the CLI's modules leave Node's defaults alone).
 *
 * Node keeps the cache in NODE_COMPILE_CACHE if set, else in <tmpdir>/node-compile-cache (about 5 MB),
 * an entry per file, Node version and file content: a changed or upgraded file is compiled again. Node
 * removes nothing; the system's cleaning of its temporary folder does. NODE_DISABLE_COMPILE_CACHE=1
 * turns it off; an unwritable folder only means no cache (Node reports it, the start goes on).
 */
if (require.main?.filename === path.join(__dirname, 'main.js')) module.enableCompileCache();
