// `--in -` and `--out -`: a bulk run in a pipeline (`... | enrich phone-lookup --in - --out - | ...`).
// The engine reads and writes files (it reads the input twice: once to find its encoding and
// separator, once to enrich it; it renames a complete output into place), so standard input is
// first copied to a temporary file, and the output is written to one and copied to standard output
// only when every row is in it: a pipeline never gets half a file. With `--out -` the summary goes
// to standard error, since standard output is the data. What comes down the pipe is read as its
// first bytes show (a workbook, JSON Lines, else CSV), and goes out as the same kind. It goes out as
// the bytes of the output file, exactly: a workbook is binary, and a text file's chunks split
// characters anywhere, so nothing decodes them on the way (scrub-io.ts: why no scrubber either; the
// engine scrubbed them as it wrote the file).
import { createReadStream, createWriteStream, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { type FileKind, kindOfContent, kindOfName, readFileStart } from '@enrich/bulk';
import { written } from './broken-pipe.js';
import { asGiven } from './scrub-io.js';

const STDIO = '-';

const EXTENSIONS: Record<FileKind, string> = { csv: '.csv', jsonl: '.jsonl', xlsx: '.xlsx' };

export class Pipes {
  private constructor(
    readonly inPath: string,
    /** Where the engine writes: the user's --out, or a temporary file for `--out -`. */
    readonly outPath: string,
    readonly toStdout: boolean,
    private readonly fromStdin: boolean,
    private readonly spool: string | undefined,
  ) {}

  /** Resolves `--in` and `--out`; copies standard input to a temporary file when `--in -`. */
  static async open(
    inFlag: string,
    outFlag: string | undefined,
    defaultOut: () => string,
    io: { readonly cwd: string; readonly stdin: NodeJS.ReadableStream },
  ): Promise<Pipes> {
    const fromStdin = inFlag === STDIO;
    // Read from a pipe, the output goes down the pipe too unless --out names a file.
    const toStdout = outFlag === STDIO || (fromStdin && outFlag === undefined);
    const spool = fromStdin || toStdout ? mkdtempSync(join(tmpdir(), 'enrich-pipe-')) : undefined;
    let inPath = resolve(io.cwd, inFlag);
    let kind = kindOfName(inPath);
    if (fromStdin && spool) {
      const spooled = join(spool, 'input');
      await pipeline(io.stdin, createWriteStream(spooled));
      kind = kindOfContent(readFileStart(spooled));
      inPath = `${spooled}${EXTENSIONS[kind]}`;
      renameSync(spooled, inPath);
    }
    const outPath =
      toStdout && spool ? join(spool, `output${EXTENSIONS[kind]}`) : resolve(io.cwd, outFlag ?? defaultOut());
    return new Pipes(inPath, outPath, toStdout, fromStdin, spool);
  }

  /** How the summary names a file: standard input and output by those names. */
  name(path: string, shown: (path: string) => string): string {
    // Not `this.spool`: `--out -` alone makes a spool too, and its input is a file with a name.
    if (this.fromStdin && path === this.inPath) return 'standard input';
    if (this.toStdout && path === this.outPath) return 'standard output';
    return shown(path);
  }

  /**
   * With `--out -`, copies the complete output to `stdout` as it was given to the command, byte for
   * byte (the same bytes `--out file` writes); rejects with BrokenPipe when the reader goes away
   * (`| head -1`), as soon as a write finds it gone.
   */
  async deliver(stdout: NodeJS.WritableStream): Promise<void> {
    if (!this.toStdout) return;
    const to = asGiven(stdout);
    for await (const chunk of createReadStream(this.outPath)) await written(to, chunk);
  }

  /** Removes the temporary files (the answers stay in the answer cache). */
  close(): void {
    if (this.spool) rmSync(this.spool, { recursive: true, force: true });
  }
}
