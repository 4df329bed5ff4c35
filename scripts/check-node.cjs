#!/usr/bin/env node
// Run by `npm install` (preinstall) and by bin/datahub.js before anything else loads: one clear line for a
// Node.js that is too old, instead of a crash later (better-sqlite3 13 segfaults on Node 20).
// Plain CommonJS with no syntax newer than ES5, so that it runs on any Node that can start at all.
'use strict';
var MINIMUM = [24, 0, 0];

function tooOld(version) {
  var parts = String(version).replace(/^v/, '').split('.').map(Number);
  for (var i = 0; i < MINIMUM.length; i++) {
    if ((parts[i] || 0) > MINIMUM[i]) return false;
    if ((parts[i] || 0) < MINIMUM[i]) return true;
  }
  return false;
}

function message(version) {
  return 'datahub-desktop needs Node.js ' + MINIMUM.join('.') + ' or later (this is ' + version +
    '): install Node.js 24 LTS from https://nodejs.org and try again.';
}

module.exports = { tooOld: tooOld, message: message, MINIMUM: MINIMUM };

if (require.main === module && tooOld(process.version)) {
  process.stderr.write(message(process.version) + '\n');
  process.exit(1);
}
