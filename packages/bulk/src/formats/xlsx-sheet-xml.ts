// A worksheet's XML taken apart as a stream, without parsing what is kept as it is: what comes
// before its rows (up to <sheetData>), each row whole (its cells, each with its column), and what
// comes after the rows (merged cells, hyperlinks, conditional formats, the page setup...). A row
// and its cells are copied as the text they were; only the rows an output adds cells to are taken
// apart, at their cells' boundaries.
//
// XML allows what Excel never writes (a CDATA section in a cell's text); the scanner steps over one
// rather than take a "</row>" inside it for the row's end.

/**
 * A piece of the sheet's XML, in order: `before` once, the rows (and anything else between them, as
 * `other`), then `after` (in one or more pieces).
 */
export type SheetPiece =
  | { readonly kind: 'before'; readonly text: string }
  | { readonly kind: 'row'; readonly xml: string }
  | { readonly kind: 'other'; readonly text: string }
  | { readonly kind: 'after'; readonly text: string };

/** A row taken apart: its opening tag, its cells, and what follows them (an extLst). */
export interface SheetRow {
  /** Its number (1 first): its `r`, else the row before's plus one. */
  readonly number: number;
  /** The opening tag, without its ">" (and without "/" for an empty row). */
  readonly open: string;
  readonly cells: readonly { readonly column: number; readonly xml: string }[];
  readonly rest: string;
}

// More text than this before <sheetData> is not a sheet (the column widths of every column of a
// sheet take about 1 MB).
const MAX_BEFORE_CHARS = 64 * 1024 * 1024;

/** The sheet's XML, decoded, as pieces. */
export async function* sheetPieces(text: AsyncIterable<string>): AsyncGenerator<SheetPiece> {
  const scanner = new SheetScanner();
  for await (const chunk of text) yield* scanner.take(chunk, false);
  yield* scanner.take('', true);
  if (scanner.state !== 'after') throw new Error('the sheet ends before its rows do');
}

// The longest bit of text a decision needs to look at ("</sheetData", "<row "): with less than this
// left before the end of what has arrived, the scanner waits for more.
const LOOKAHEAD = 16;

class SheetScanner {
  state: 'before' | 'rows' | 'after' = 'before';
  private buffer = '';

  *take(chunk: string, final: boolean): Generator<SheetPiece> {
    this.buffer += chunk;
    const buffer = this.buffer;
    let at = 0;
    for (;;) {
      if (this.state === 'before') {
        const open = tagAt(buffer, 'sheetData', 0);
        const end = open === -1 ? -1 : buffer.indexOf('>', open);
        if (end === -1) {
          if (buffer.length > MAX_BEFORE_CHARS) throw new Error('the sheet has no <sheetData>');
          return;
        }
        yield { kind: 'before', text: `${withoutDimension(buffer.slice(0, open))}<sheetData>` };
        // An empty <sheetData/> closes itself: its closing tag is added for the rows an output adds.
        this.state = 'rows';
        this.buffer =
          buffer[end - 1] === '/' ? `</sheetData>${buffer.slice(end + 1)}` : buffer.slice(end + 1);
        yield* this.take('', final);
        return;
      }
      if (this.state === 'after') {
        if (at < buffer.length) yield { kind: 'after', text: buffer.slice(at) };
        at = buffer.length;
        break;
      }
      while (at < buffer.length && isSpace(buffer.charCodeAt(at))) at++;
      if (!final && buffer.length - at < LOOKAHEAD) break;
      if (at >= buffer.length) break;
      if (buffer.startsWith('</sheetData', at)) {
        this.state = 'after';
        continue;
      }
      if (tagAt(buffer, 'row', at) === at) {
        const openEnd = buffer.indexOf('>', at);
        if (openEnd === -1) break;
        let end: number;
        if (buffer[openEnd - 1] === '/') end = openEnd + 1;
        else {
          const close = findOutsideCdata(buffer, '</row>', openEnd);
          if (close === -1) break;
          end = close + '</row>'.length;
        }
        yield { kind: 'row', xml: buffer.slice(at, end) };
        at = end;
        continue;
      }
      // Something other than a row (a comment; an element Excel does not write there): kept as it
      // is, up to the next row or the end of the rows.
      const next = nextRowOrEnd(buffer, at + 1);
      if (next === -1) {
        if (!final) break;
        throw new Error('the sheet ends before its rows do');
      }
      yield { kind: 'other', text: buffer.slice(at, next) };
      at = next;
    }
    this.buffer = buffer.slice(at);
  }
}

/** A row's XML taken apart; `previous` is the number of the row before it (0 for none). */
export function sheetRow(xml: string, previous: number): SheetRow {
  const openEnd = xml.indexOf('>');
  const empty = xml[openEnd - 1] === '/';
  const open = xml.slice(0, empty ? openEnd - 1 : openEnd);
  const number = Number(/\sr\s*=\s*["'](\d+)["']/.exec(open)?.[1] ?? previous + 1);
  const cells: { column: number; xml: string }[] = [];
  let rest = '';
  if (!empty) {
    const inner = xml.slice(openEnd + 1, xml.length - '</row>'.length);
    let at = 0;
    let column = 0;
    while (at < inner.length) {
      while (at < inner.length && isSpace(inner.charCodeAt(at))) at++;
      if (at >= inner.length) break;
      if (tagAt(inner, 'c', at) !== at) {
        rest = inner.slice(at);
        break;
      }
      const cellOpenEnd = inner.indexOf('>', at);
      const end =
        inner[cellOpenEnd - 1] === '/'
          ? cellOpenEnd + 1
          : findOutsideCdata(inner, '</c>', cellOpenEnd) + '</c>'.length;
      if (cellOpenEnd === -1 || end < cellOpenEnd)
        throw new Error(`row ${number} has a cell that does not end`);
      const letters = /\sr\s*=\s*["']([A-Za-z]+)\d+["']/.exec(inner.slice(at, cellOpenEnd))?.[1];
      column = letters === undefined ? column + 1 : columnNumber(letters);
      cells.push({ column, xml: inner.slice(at, end) });
      at = end;
    }
  }
  return { number, open: withoutSpans(open), cells, rest };
}

/** A column's letters (A, Z, AA, XFD) from its number (1 first). */
export function columnLetters(column: number): string {
  let letters = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26)) {
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  }
  return letters;
}

function columnNumber(letters: string): number {
  let n = 0;
  for (const letter of letters.toUpperCase()) n = n * 26 + letter.charCodeAt(0) - 64;
  return n;
}

/** Where the element `name` opens at or after `from` (its name whole: <c> is not <col>), else -1. */
function tagAt(text: string, name: string, from: number): number {
  for (let at = text.indexOf(`<${name}`, from); at !== -1; at = text.indexOf(`<${name}`, at + 1)) {
    const next = text.charCodeAt(at + name.length + 1);
    if (Number.isNaN(next)) return -1; // cut at the end of what has arrived: wait for more
    if (isSpace(next) || next === 0x3e /* > */ || next === 0x2f /* / */) return at;
  }
  return -1;
}

function nextRowOrEnd(text: string, from: number): number {
  const row = tagAt(text, 'row', from);
  const end = text.indexOf('</sheetData', from);
  if (row === -1) return end;
  return end === -1 ? row : Math.min(row, end);
}

function findOutsideCdata(text: string, needle: string, from: number): number {
  let at = from;
  for (;;) {
    const found = text.indexOf(needle, at);
    // Looked for between here and what was found only: a search to the end of the text for every
    // row was a twentieth of a run's time.
    const cdata = found === -1 ? -1 : text.slice(at, found).indexOf('<![CDATA[');
    if (cdata === -1) return found;
    const cdataEnd = text.indexOf(']]>', at + cdata);
    if (cdataEnd === -1) return -1;
    at = cdataEnd + 3;
  }
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/**
 * The sheet's <dimension> (the range it says it uses) is left out: it would be narrower than the
 * sheet with its output columns, and some readers (openpyxl's read-only mode, so pandas) read no
 * further than it says. Without one, every reader, Excel too, works the range out from the cells.
 */
function withoutDimension(xml: string): string {
  return xml.replace(/<dimension\b[^>]*\/>|<dimension\b[^>]*>[\s\S]*?<\/dimension>/, '');
}

/** A row's `spans` (the columns it says its cells are in, an optional hint) would be too narrow: left out. */
function withoutSpans(open: string): string {
  return open.replace(/\sspans\s*=\s*("[^"]*"|'[^']*')/, '');
}
