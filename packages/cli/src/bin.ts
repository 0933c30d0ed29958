#!/usr/bin/env node
// Entry of the built command (dist/enrich.mjs).
import { tuneHeapForBulkRuns } from './heap-tuning.js';
import { main } from './main.js';

tuneHeapForBulkRuns();
process.exitCode = await main(process.argv.slice(2));
