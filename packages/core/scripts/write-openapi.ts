import { writeFileSync } from 'node:fs';
import { buildOpenApi } from '../src/index.js';

const target = new URL('../openapi.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(buildOpenApi(), null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
