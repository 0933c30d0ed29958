#!/usr/bin/env node
// `pnpm start` at the repository root runs this.
import { register } from 'tsx/esm/api';

register();
await import('../src/demo.ts');
