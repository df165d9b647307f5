import { greet } from './shared.js';

export const name = 'double';

export function run(n) {
  greet(name);
  return n * 2;
}
