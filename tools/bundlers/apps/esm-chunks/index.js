// ES modules only (no package, no CommonJS), loaded in part on demand: a code-split build
// of it holds no module wrapper, only chunks that import each other.
import { greet, counted, Tally } from './lib/shared.js';

const args = process.argv.slice(2);
console.log(greet('main'));
if (args.includes('--version')) {
  console.log('esm-chunks 1.0.0');
} else {
  Promise.all([import('./lib/double.js'), import('./lib/square.js')]).then(([double, square]) => {
    const tally = new Tally();
    for (let i = 1; i <= 3; i++) tally.add(double.run(i) + square.run(i));
    console.log(tally.total, counted(), double.name, square.name);
    console.error('done after', counted(), 'greetings');
    process.exitCode = 3;
  });
}
