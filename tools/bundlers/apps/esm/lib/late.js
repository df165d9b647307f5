export function greet(who) {
  return `late ${who}`;
}
