const lodash = require("lodash");
exports.total = (xs) => lodash.sum(xs);
