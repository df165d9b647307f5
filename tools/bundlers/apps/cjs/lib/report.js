// Formatting with the shapes minifiers produce from ordinary code: conditions as expressions,
// defaults with || and ??, early returns.
const { pad } = require("./text");

function describe(item, verbose) {
  if (!item) return "nothing";
  const state = item.count > 0 ? "in stock" : "sold out";
  let note = item.note || null;
  note = note !== null && note !== undefined ? note : verbose ? "(no note)" : "";
  return pad(item.name, 6) + " " + state + (note ? " " + note : "");
}

function lines(inv) {
  const out = [];
  let warned = false;
  for (const item of inv.items()) {
    out.push(describe(item, item.count === 0));
    item.count === 0 && !warned && (warned = true, out.push("! restock needed"));
  }
  return out;
}

async function later(inv) {
  const { summary } = await import("./summary.js");
  return summary(inv);
}

module.exports = { lines, later, describe };
