#!/usr/bin/env node
// The npm package's `kubectl-agd` (bin/kubectl_complete-agd.cjs runs it too). CommonJS, in syntax every
// Node.js since 4 parses, and it loads nothing before the version check: an older Node.js says which
// version it needs instead of failing inside the compiled CLI (dist/cli.js, ES modules for Node.js 24).
'use strict';
var NEEDED_MAJOR = 24;
if (Number(process.versions.node.split('.')[0]) < NEEDED_MAJOR) {
  process.stderr.write(
    'kubectl-agd: needs Node.js ' + NEEDED_MAJOR + ' or newer; this is Node.js ' + process.versions.node +
      ' (' + process.execPath + '). Install Node.js ' + NEEDED_MAJOR +
      ', or use the single-file kubectl-agd, which needs no Node.js.\n'
  );
  process.exit(1);
}

// In a clone (`npm link`) the sources are there and Node.js strips their types; the package holds
// only the compiled dist/ (Node.js strips no types under node_modules).
var fromClone = require('fs').existsSync(require('path').join(__dirname, '..', 'src', 'cli.ts'));

/** Runs the CLI with these arguments; the exit code is set when it is done. */
function run(args) {
  return import(fromClone ? '../src/cli.ts' : '../dist/cli.js').then(function (cli) {
    return cli.main(args);
  });
}

module.exports = run;
if (require.main === module) run(process.argv.slice(2));
