// Self-test probe that must not crash, whatever the input (CommonJS on purpose).
"use strict";
exports.fuzz = function fuzz(data) {
  return data.length >= 0;
};
