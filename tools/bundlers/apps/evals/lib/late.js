const ms = require("ms");
exports.later = (n) => ms(n * 60000);
