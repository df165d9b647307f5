// A CommonJS module that replaces its exports.
module.exports = (who) => "hello, " + who;
module.exports.double = (n) => n * 2;
