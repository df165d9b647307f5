let greetings = 0;

export function greet(who) {
  greetings += 1;
  return `hello from ${who}`;
}

export const counted = () => greetings;

export class Tally {
  total = 0;
  add(n) {
    this.total += n;
    return this;
  }
}
