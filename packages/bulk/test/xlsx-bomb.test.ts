// Workbooks that unpack to far more than they weigh (zip bombs) are refused before anything is
// unpacked or sent, against the sandbox over real HTTP: one whose zip directory says so (refused
// by the limits of zip-limits.ts, from the directory alone), and one whose directory lies
// (refused as the part inflates past what the directory gave). The bombs are built streaming
// (test/zip-bomb.ts): the test never holds what they unpack to.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BulkError, type BulkOptions, planBulk, runBulk } from '../src/index.js';
import { useSandbox } from './fixtures.js';
import { phone, sandboxRun } from './sandbox-run.js';
import { repeated, workbookParts, writeBombWorkbook, writeZip } from './zip-bomb.js';

const at = useSandbox();

function options(inPath: string): BulkOptions {
  return sandboxRun(at.server, { inPath, outPath: join(at.dir, 'out.xlsx') });
}

/** The run's error: a BulkError, whose message the test reads. */
async function refusal(run: Promise<unknown>): Promise<string> {
  const error = await run.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(BulkError);
  return (error as BulkError).message;
}

describe('a workbook that is a zip bomb', () => {
  it('one shared string of 400 MiB in a workbook of about 400 KB: refused before anything is sent, naming the part and the limit', async () => {
    const { dir, server } = at;
    const inPath = join(dir, 'bomb.xlsx');
    await writeBombWorkbook(inPath, phone(1), 400);
    expect(statSync(inPath).size).toBeLessThan(1024 * 1024);
    const before = process.memoryUsage().rss;

    const message = await refusal(runBulk(options(inPath)));
    expect(message).toBe(
      `${inPath} is refused: its part xl/sharedStrings.xml unpacks to 400 MiB, over the limit of 256 MiB for a part other than a sheet. Such a file is a zip bomb or damaged, not a workbook an office tool saved. Nothing was sent.`,
    );
    expect(await refusal(planBulk(options(inPath)))).toBe(message);
    expect(server.sandbox.stats()).toMatchObject({ requests: 0, transactions: 0 });
    // Nothing was unpacked: the memory is what it was (the bomb unpacked took 3 GB).
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
  });

  it('a smaller part that unpacks over 250 times its packed size is refused by its ratio', async () => {
    const { dir, server } = at;
    const inPath = join(dir, 'ratio.xlsx');
    await writeBombWorkbook(inPath, phone(1), 100);
    const message = await refusal(runBulk(options(inPath)));
    expect(message).toMatch(
      /^.*ratio\.xlsx is refused: its part xl\/sharedStrings\.xml unpacks to 1,0\d\d times its packed size \(100 MiB from \d+ KiB\), over the limit of 250:1 for a part over 8 MiB\. .* Nothing was sent\.$/,
    );
    expect(server.sandbox.stats()).toMatchObject({ requests: 0, transactions: 0 });
  });

  it('one whose zip directory understates a part is refused as that part inflates past it, before anything is sent', async () => {
    const { dir, server } = at;
    const inPath = join(dir, 'liar.xlsx');
    // 64 MiB of shared string that the directory says is 1 MiB: within every limit, as it says.
    await writeZip(
      inPath,
      workbookParts(phone(1), () => repeated(64)),
      (name, size) => (name === 'xl/sharedStrings.xml' ? 1024 * 1024 : size),
    );
    const message = await refusal(runBulk(options(inPath)));
    expect(message).toBe(
      `${inPath} is refused: it holds a part (xl/sharedStrings.xml) that unpacks to more than the 1 MiB its zip directory gives. Such a file is a zip bomb or damaged, not a workbook an office tool saved. Nothing was sent.`,
    );
    expect(server.sandbox.stats()).toMatchObject({ requests: 0, transactions: 0 });
  });
});
