// Draws the toolkit's icon as PNG files (no image library: a PNG is a zlib stream of rows plus
// three chunks) for the stores that want bitmaps: the VS Code Marketplace and Open VSX (128x128),
// and the Google Workspace Marketplace (32x32 and 128x128). `node scripts/make-icons.mjs` rewrites
// them; the PNGs are committed, so builds do not depend on this script.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { crc32 } from './zip.mjs';

const root = join(import.meta.dirname, '..');
const TEAL = [14, 124, 134];
const WHITE = [255, 255, 255];

/** The icon at `size` pixels: a rounded teal square holding a white "E" of three bars and a stem. */
function pixel(x, y, size) {
  const u = (x + 0.5) / size;
  const v = (y + 0.5) / size;
  // Rounded corners: outside a radius of 18% at each corner is transparent.
  const r = 0.18;
  const cx = Math.min(Math.max(u, r), 1 - r);
  const cy = Math.min(Math.max(v, r), 1 - r);
  if ((u - cx) ** 2 + (v - cy) ** 2 > r * r) return [0, 0, 0, 0];
  const inStem = u >= 0.28 && u < 0.42 && v >= 0.22 && v < 0.78;
  const bar = (top) => u >= 0.28 && u < 0.74 && v >= top && v < top + 0.13;
  const inBar = bar(0.22) || (u < 0.66 && bar(0.435)) || bar(0.65);
  return [...(inStem || inBar ? WHITE : TEAL), 255];
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

export function png(size) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bits per channel
  header[9] = 6; // RGBA
  const rows = [];
  for (let y = 0; y < size; y++) {
    rows.push(0); // filter: none
    for (let x = 0; x < size; x++) rows.push(...pixel(x, y, size));
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.from(rows), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const targets = [
  ['apps/vscode/media/icon.png', 128],
  ['apps/sheets/listing/icon-32.png', 32],
  ['apps/sheets/listing/icon-128.png', 128],
];
for (const [file, size] of targets) {
  writeFileSync(join(root, file), png(size));
  console.log(`${file}: ${size}x${size}`);
}
