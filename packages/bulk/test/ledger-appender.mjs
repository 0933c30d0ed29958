// A separate process appending to one ledger, as a CLI run or an MCP server does
// (ledger-file.test.ts starts several at once):
// `node ledger-appender.mjs <ledger> <run> <lines> <start at, epoch ms>`. The processes start
// appending at the same moment (whenever each finished loading), and each line is its own append,
// so that their writes interleave as much as they can.
import { register } from 'tsx/esm/api';

register();
const { LedgerFile } = await import('../src/store/ledger-file.ts');
const [path, run, lines, startAt] = process.argv.slice(2);
const ledger = new LedgerFile(path);
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
for (let i = 1; i <= Number(lines); i++) {
  ledger.append({
    v: 1,
    at: new Date().toISOString(),
    operation: 'phone-lookup',
    origin: 'http://127.0.0.1',
    client: 'cli',
    run,
    file: 'leads.csv',
    count: i,
  });
}
