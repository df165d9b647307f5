// CommonJS requiring an ES module: webpack cannot join shapes.js into its importers.
const shapes = require("./shapes.js");
exports.total = () => shapes.area(1) + shapes.area(2);
exports.names = () => shapes.describe();
