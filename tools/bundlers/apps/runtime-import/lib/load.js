const dynamicImport = new Function("specifier", "return import(specifier)");
const viaCall = Function("specifier", "return import(specifier)");

exports.load = (specifier) => (specifier.startsWith("data:") ? viaCall(specifier) : dynamicImport(specifier));
exports.isFunction = (f) => f instanceof Function && dynamicImport instanceof Function;
