#!/usr/bin/env node
// The `enrich` command. The CLI is TypeScript run through tsx, like the workspace's other tools.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv.slice(2));
