(function (Level) {
  Level[(Level.Low = 0)] = "Low";
  Level[(Level.High = 1)] = "High";
})(Level || (Level = {}));
class Meter {
  constructor(level) {
    this.level = level;
  }
  read() {
    return Level[this.level].toLowerCase();
  }
}
var Level;
exports.Level = Level;
exports.Meter = Meter;
