// A CommonJS module that keeps state.
let n = 0;
exports.name = "one";
exports.runs = () => ++n;
