#!/usr/bin/env node
// Entry of the built command (dist/enrich.mjs).
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));
