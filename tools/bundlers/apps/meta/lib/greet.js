export function greet(who) {
  return `hello ${who}`;
}
export class Counter {
  count = 0;
  bump() {
    this.count += 1;
    return this;
  }
}
