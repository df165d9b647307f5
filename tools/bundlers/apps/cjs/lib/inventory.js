// An inventory with an error class of its own, exported under the name `Error`: a careless
// renamer that names the class after its export writes `class Error extends Error`.
class InventoryError extends Error {
  constructor(message) {
    super(message);
    this.name = "InventoryError";
  }
}

class Inventory {
  constructor() {
    this.byName = new Map();
  }
  add(name, count, price) {
    const item = this.byName.get(name) || { name, count: 0, price };
    item.count += count;
    this.byName.set(name, item);
    return this;
  }
  take(name, count) {
    const item = this.byName.get(name);
    if (!item || item.count < count) throw new InventoryError("not enough " + name);
    item.count -= count;
  }
  items() {
    return [...this.byName.values()];
  }
  total() {
    let sum = 0;
    for (let i = 0, all = this.items(), n = all.length; i < n; i++) sum += all[i].count;
    return sum;
  }
}

exports.Inventory = Inventory;
exports.Error = InventoryError;
