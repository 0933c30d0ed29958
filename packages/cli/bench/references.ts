// The two references the benchmark measures enrich against, written as plain scripts into the
// bench's temp directory and run as processes of their own, like enrich:
// - the peer: what a competent engineer writes in an afternoon. Pass 1 reads the CSV (csv-parse),
//   deduplicates phones in a Map and fetches each distinct one through p-limit(32); pass 2 reads the
//   file again and writes every row with its answer's columns (csv-stringify). No journal, no
//   resume, no budget: the floor a careful tool is compared with.
// - the CSV pass: csv-parse piped into csv-stringify over the same file, nothing else: the least
//   any tool that reads and writes the file must spend.
// - the bare loop: 32 loops of node:http requests with keep-alive, one distinct phone each, no file,
//   no parsing of the answers: the most that this machine, this sandbox and 32 connections give.
// All print {cpuMs, maxRssBytes} as their last line.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const USAGE = `const usage = process.resourceUsage();
process.stdout.write(JSON.stringify({ cpuMs: Math.round((usage.userCPUTime + usage.systemCPUTime) / 1000), maxRssBytes: usage.maxRSS * 1024 }) + '\\n');`;

function imports(): string {
  const at = (name: string) => JSON.stringify(import.meta.resolve(name));
  // p-limit as the engine has it (the CLI itself does not depend on it).
  const fromEngine = createRequire(fileURLToPath(import.meta.resolve('@enrich/bulk')));
  const pLimit = JSON.stringify(pathToFileURL(fromEngine.resolve('p-limit')).href);
  return `import { createReadStream, createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { parse } from ${at('csv-parse')};
import { stringify } from ${at('csv-stringify')};
import pLimit from ${pLimit};`;
}

const PEER = `
const [inPath, outPath, baseUrl, key] = process.argv.slice(2);
const limit = pLimit(32);
const answers = new Map();
const tasks = [];
const digitsOf = (text) => text.replace(/\\D/g, '').slice(-10);
const flatten = (value, prefix, into) => {
  for (const [name, inner] of Object.entries(value ?? {})) {
    const path = prefix ? prefix + '.' + name : name;
    if (inner !== null && typeof inner === 'object') flatten(inner, path, into);
    else into[path] = inner === null || inner === undefined ? '' : String(inner);
  }
  return into;
};
let header;
for await (const row of createReadStream(inPath).pipe(parse({ bom: true, relax_column_count: true }))) {
  if (!header) { header = row; continue; }
  const phone = digitsOf(row[header.indexOf('phone')] ?? '');
  if (phone.length !== 10 || answers.has(phone)) continue;
  answers.set(phone, undefined);
  tasks.push(limit(async () => {
    const response = await fetch(baseUrl + '/v3/lookup/phone', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ Phone: phone }),
    });
    const text = await response.text();
    answers.set(phone, response.status === 200 ? { status: 'ok', fields: flatten(JSON.parse(text), '', {}) } : { status: 'status ' + response.status, fields: {} });
  }));
}
await Promise.all(tasks);
const columns = [];
for (const answer of answers.values()) for (const name of Object.keys(answer?.fields ?? {})) if (!columns.includes(name)) columns.push(name);
let first = true;
await pipeline(
  createReadStream(inPath),
  parse({ bom: true, relax_column_count: true }),
  async function* (rows) {
    for await (const row of rows) {
      if (first) { first = false; yield [...row, ...columns, 'status']; continue; }
      const answer = answers.get(digitsOf(row[header.indexOf('phone')] ?? ''));
      yield [...row, ...columns.map((c) => answer?.fields[c] ?? ''), answer?.status ?? 'invalid'];
    }
  },
  stringify(),
  createWriteStream(outPath),
);
`;

const CSV_PASS = `
const [inPath, outPath] = process.argv.slice(2);
await pipeline(createReadStream(inPath), parse({ bom: true, relax_column_count: true }), stringify(), createWriteStream(outPath));
`;

const BARE_LOOP = `
import { Agent, request } from 'node:http';
const [baseUrl, key, count] = process.argv.slice(2);
const url = new URL(baseUrl + '/v3/lookup/phone');
const agent = new Agent({ keepAlive: true });
const total = Number(count);
let next = 0;
const ask = (i) => new Promise((resolve, reject) => {
  const body = JSON.stringify({ Phone: '556' + String(1000000 + i).padStart(7, '0') });
  const headers = { 'content-type': 'application/json', 'x-api-key': key, 'content-length': Buffer.byteLength(body) };
  const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers }, (res) => {
    res.on('data', () => {});
    res.on('end', resolve);
  });
  req.on('error', reject);
  req.end(body);
});
const loop = async () => { while (next < total) await ask(next++); };
await Promise.all(Array.from({ length: 32 }, loop));
`;

/** Writes the three scripts into `dir`; returns their paths. */
export function writeReferences(dir: string): { peer: string; csvPass: string; bareLoop: string } {
  const peer = join(dir, 'peer.mjs');
  const csvPass = join(dir, 'csv-pass.mjs');
  const bareLoop = join(dir, 'bare-loop.mjs');
  writeFileSync(peer, `${imports()}\n${PEER}\n${USAGE}\n`);
  writeFileSync(csvPass, `${imports()}\n${CSV_PASS}\n${USAGE}\n`);
  writeFileSync(bareLoop, `${BARE_LOOP}\n${USAGE}\n`);
  return { peer, csvPass, bareLoop };
}
