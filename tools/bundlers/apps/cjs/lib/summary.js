// Loaded on demand: its own chunk.
const { pad } = require("./text");
exports.summary = (inv) => {
  const total = inv.total();
  return pad("total", 6) + " " + total + (total > 10 ? " (plenty)" : " (few)");
};
