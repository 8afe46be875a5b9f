// Fails fast, with a message a newcomer can act on, when npm runs under a Node.js older than package.json's engines.
'use strict';
const { engines } = require('../package.json');
const want = Number(/(\d+)/.exec(engines.node)[1]);
const have = Number(process.versions.node.split('.')[0]);
if (have < want) {
  console.error(
    `adapter-engine needs Node.js ${want} or newer; this is Node.js ${process.versions.node}.\n` +
      `Install Node.js ${want} LTS, or use the official binary from the npm registry without installing it:\n` +
      `  export PATH="$(bash .ci/node24):$PATH"`,
  );
  process.exit(1);
}
