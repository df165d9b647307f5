// A package built by webpack as a CommonJS library (as ncc builds envinfo), which another
// webpack build takes in whole: terser writes the nested runtime as a named function
// expression called at once, `n=function t(r){var e=...}(338)`, whose own `var e` shadows
// the outer module's require that the nested external reads.
module.exports = require('./lib/info.js');
