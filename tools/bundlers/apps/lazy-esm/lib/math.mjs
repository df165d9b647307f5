let count = 0;
count += 1;
export function twice(n) {
  return n * 2;
}
export function runs() {
  return count;
}
