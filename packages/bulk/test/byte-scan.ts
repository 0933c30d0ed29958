// The byte scan of issue 38's target: every file under some folders searched, byte for byte, for a
// person in every spelling an answer, a request or a file may hold them: a phone's digits (not
// inside a longer number), with a leading 1, formatted four ways; an e-mail as typed, in lower and
// upper case, JSON-escaped once and twice; a name and street line in any case. Shared by the tests
// of every client (the CLI's, the MCP server's, VS Code's import it by path).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface Person {
  readonly phone?: string;
  readonly email?: string;
  /** The name and street line, searched as written together ("Jane Doe", "12 Main St"). */
  readonly name?: string;
  readonly street?: string;
}

/** Every spelling searched for, as case-insensitive regular expressions. */
export function spellings(person: Person): RegExp[] {
  const found: RegExp[] = [];
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  if (person.phone) {
    const d = person.phone;
    const [a, b, c] = [d.slice(0, 3), d.slice(3, 6), d.slice(6)];
    for (const text of [
      d,
      `1${d}`,
      `(${a}) ${b}-${c}`,
      `${a}-${b}-${c}`,
      `${a}.${b}.${c}`,
      `+1 ${a} ${b} ${c}`,
    ]) {
      found.push(new RegExp(`(?<![0-9])${literal(text)}(?![0-9])`));
    }
  }
  if (person.email) {
    const e = person.email;
    const escaped = JSON.stringify(e).slice(1, -1);
    for (const text of [e, escaped, JSON.stringify(escaped).slice(1, -1), e.replace('@', '\\u0040')]) {
      found.push(new RegExp(`(?<![A-Za-z0-9._%+-])${literal(text)}(?![A-Za-z0-9-])`, 'i'));
    }
  }
  if (person.street) found.push(new RegExp(literal(person.street), 'i'));
  if (person.name) found.push(new RegExp(literal(person.name), 'i'));
  return found;
}

/** Files under the folders (recursively) that hold the person in some spelling, with the spelling. */
export function byteScan(folders: readonly string[], person: Person): string[] {
  const patterns = spellings(person);
  const hits: string[] = [];
  const visit = (path: string) => {
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(path);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      for (const name of readdirSync(path)) visit(join(path, name));
      return;
    }
    if (!stat.isFile()) return;
    // latin1 keeps every byte as one character: a search for ASCII finds it whatever the encoding.
    const text = readFileSync(path).toString('latin1');
    for (const pattern of patterns) if (pattern.test(text)) hits.push(`${path}: ${pattern.source}`);
  };
  for (const folder of folders) visit(folder);
  return hits;
}
