var $parcel$global = globalThis;
var $parcel$modules = {};
var $parcel$inits = {};
var parcelRequire = $parcel$global["parcelRequire4485"];
if (parcelRequire == null) {
  parcelRequire = function(id) {
    if (id in $parcel$modules) {
      return $parcel$modules[id].exports;
    }
    if (id in $parcel$inits) {
      var init = $parcel$inits[id];
      delete $parcel$inits[id];
      var module = {id: id, exports: {}};
      $parcel$modules[id] = module;
      init.call(module.exports, module, module.exports);
      return module.exports;
    }
    var err = new Error("Cannot find module '" + id + "'");
    err.code = 'MODULE_NOT_FOUND';
    throw err;
  };
  parcelRequire.register = function register(id, init) {
    $parcel$inits[id] = init;
  };
  $parcel$global["parcelRequire4485"] = parcelRequire;
}
var parcelRegister = parcelRequire.register;
var $counter = 0;
parcelRegister("kfwLk", function(module, exports) {
  var $b = parcelRequire("aXq2Z");
  $counter += 1;
  module.exports = { total: $b.base + $counter, counted: function() { return $counter; } };
});
parcelRegister("aXq2Z", function(module, exports) {
  exports.base = 40;
  exports.strict = (function() { return this; })() === undefined;
});
var $entry = parcelRequire("kfwLk");
$counter += 1;
console.log($entry.total, $entry.counted(), $counter, parcelRequire("aXq2Z").strict);
