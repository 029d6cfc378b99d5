#!/usr/bin/env node
// kubectl (1.26 and later) runs `kubectl_complete-agd ARGS...` to complete `kubectl agd ARGS...`.
'use strict';
require('./kubectl-agd.cjs')(['__complete'].concat(process.argv.slice(2)));
