// The demo's last word on money: what its runs spent, as the spend ledger recorded it, and that
// `enrich spend` shows it. The runs are this process's, so the figure is the ledger's sandbox lines
// of the CLI since this process started (a sandbox run of the CLI elsewhere at the same moment would
// be counted too; the demo's own summaries give each run's figure).
import { SANDBOX_ORIGIN } from '@enrich/bulk';
import { cliLedger } from './spend-ledger.js';
import { grouped } from './terminal-text.js';

export function demoSpendText(env: Readonly<Record<string, string | undefined>>): string {
  const ledger = cliLedger({ env });
  let spent = 0;
  try {
    for (const entry of ledger.read().entries) {
      const mine = entry.client === 'cli' && entry.origin === SANDBOX_ORIGIN;
      if (mine && Date.parse(entry.at) >= performance.timeOrigin) spent += entry.count;
    }
  } catch {
    return `The spend ledger ${ledger.path} could not be read; \`enrich spend\` says why.`;
  }
  const what =
    spent === 0
      ? 'This demo spent no transaction'
      : `This demo spent ${grouped(spent)} transaction${spent === 1 ? '' : 's'} (the sandbox's: nothing billed)`;
  return `${what}. \`enrich spend\` shows what was spent, from the spend ledger ${ledger.path}, where every paid transaction is recorded.`;
}
