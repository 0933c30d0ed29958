// Small helpers of the runtime: a map lookup that creates, a formula's argument list, the virtual
// Date and seeded Math.random installed in a context.
import vm from 'node:vm';

export function mapGet<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

export function splitArgs(text: string): string[] {
  const args: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = '';
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    if (!quoted && ch === '(') depth++;
    if (!quoted && ch === ')') depth--;
    if (!quoted && depth === 0 && ch === ',') {
      args.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (current.trim() !== '' || args.length > 0) args.push(current.trim());
  return args;
}

/** Date follows the given clock, and Math.random the given sequence: runs repeat exactly. */
export function installTime(context: vm.Context, now: () => number, random: () => number): void {
  vm.compileFunction(
    `const D = Date;
     class VirtualDate extends D {
       constructor(...args) { if (args.length === 0) super(now()); else super(...args); }
       static now() { return now(); }
     }
     globalThis.Date = VirtualDate;
     Math.random = random;`,
    ['now', 'random'],
    { parsingContext: context },
  )(now, random);
}

/** A small seeded generator, so that jitter and ids repeat from run to run. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
