// The second program: its own copy of ms and semver.
const ms = require("ms");
const semver = require("semver");
exports.newest = (versions) => `${semver.maxSatisfying(versions, "^1.0.0")} after ${ms(1000)}`;
