// An ES module kept apart by webpack (legacy.js requires it), so its exports are getters.
export function area(r) {
  return Math.PI * r * r;
}

export class Shape {
  constructor(name, sides) {
    this.name = name;
    this.sides = sides;
  }
  toString() {
    return `${this.name}/${this.sides}`;
  }
}

// Called without a receiver, `this` is undefined; with one, it is the module's exports.
export function whoAmI() {
  return this === undefined ? "no receiver" : "a receiver";
}

export const counter = {
  n: 0,
  bump() {
    return ++this.n;
  },
};

// A live binding: importers see the new value after setValue.
export let value = 1;
export function setValue(v) {
  value = v;
  return "set";
}

export function describe() {
  return [area.name, Shape.name, typeof whoAmI].join(" ");
}

export default function scale(k) {
  return area(1) * k > 9 ? "big" : "small";
}
