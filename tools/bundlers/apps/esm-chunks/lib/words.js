export function describe(word, n) {
  return n > 0 ? `${word}#${n}` : word;
}
