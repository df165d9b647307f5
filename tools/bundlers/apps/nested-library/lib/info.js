const path = require('path');
exports.info = (p) => 'base ' + path.basename(p) + ' ' + require('./count.js').next();
