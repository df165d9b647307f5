// Replaces its exports with a function, and gives it a property.
module.exports = function greet(name) {
  return "hello, " + name;
};
module.exports.loud = (name) => module.exports(name).toUpperCase();
