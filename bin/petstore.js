#!/usr/bin/env node
// Shim: run the built CLI and exit with its code once stdout and stderr are flushed.
import { run } from '../dist/cli-entry.js';

run(process.argv.slice(2));
