exports.kinds = function () {
  return Object.keys(Kind).filter((k) => isNaN(Number(k)));
};
var Kind;
(function (Kind) {
  Kind[(Kind.Small = 1)] = "Small";
  Kind[(Kind.Large = 2)] = "Large";
})(Kind || (exports.Kind = Kind = {}));
