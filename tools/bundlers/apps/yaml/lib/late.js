export default function late(doc) {
  return `late: ${Object.keys(doc).join(", ")}`;
}
