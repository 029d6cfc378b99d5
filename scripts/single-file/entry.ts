// The single-file kubectl-agd's entry (scripts/single-file.ts bundles from here). assets.ts first: ES
// modules are evaluated in import order, so the asset reads are answered before the CLI's modules load.
import './assets.ts';
import { main } from '../../src/cli.ts';

// Run through a link named kubectl_complete-agd (made by hand beside a krew install), it completes: the
// name it was run as says which it is. The archive's kubectl_complete-agd is a script that says so itself.
const invokedAs = process.argv0.split('/').at(-1) ?? '';
const args = process.argv.slice(2);
void main(invokedAs === 'kubectl_complete-agd' ? ['__complete', ...args] : args);
