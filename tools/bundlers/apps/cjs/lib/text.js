exports.pad = function pad(text, width) {
  let s = String(text);
  while (s.length < width) s += " ";
  return s;
};
