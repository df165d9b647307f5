(function (State) {
  State[(State.Idle = 0)] = "Idle";
  State[(State.Busy = 1)] = "Busy";
})(exports.State || (exports.State = {}));
exports.describe = function (state) {
  return "<" + exports.State[state] + ">";
};
