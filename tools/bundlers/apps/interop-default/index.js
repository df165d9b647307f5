// CommonJS as Babel writes it: its interop helper reads the required module's
// `__esModule` mark to tell an ES module's `default` from a CommonJS module's exports
// (as global-agent's `errors.js` requires es6-error).
'use strict';
function _interopRequireDefault(obj) {
  return obj && obj.__esModule ? obj : { default: obj };
}
var _error = _interopRequireDefault(require('./error.mjs'));
class StateError extends _error.default {
  constructor(message) {
    super(message);
    this.code = 'STATE';
  }
}
const e = new StateError('bad state');
console.log(e.name, e.code, e.message, e instanceof Error);
