// The closing summary of a bulk run or a dry run, for people (JSON is the summary object itself).
import { type BulkPlan, type BulkSummary, type CsvLayout, type FileKind, outputHasBom } from '@enrich/bulk';
import { type Breakdown, breakdownText, LIKELY_NOTE, paceReachedText, throttledText } from '@enrich/core';
import { grouped, printable, twoColumns } from './terminal-text.js';

export function bulkReport(title: string, s: BulkSummary): string {
  const rows: [string, string][] = [
    ['rows', grouped(s.rows)],
    ['distinct requests', `${grouped(s.distinct)} (${grouped(s.fromCache)} answered from the cache)`],
    ...(s.store === undefined
      ? []
      : [
          ['from the shared store', `${grouped(s.fromStore)} (bought by another client: free)`] as [
            string,
            string,
          ],
        ]),
    ['transactions spent', grouped(s.transactions)],
    ['ok', grouped(s.ok)],
    ['no match', grouped(s.noMatch)],
    ['invalid', s.blank > 0 ? `${grouped(s.invalid)} (${grouped(s.blank)} blank)` : grouped(s.invalid)],
    ['errors', grouped(s.errors)],
  ];
  rows.push(...fileRow(s));
  if (s.unreadable > 0) rows.push(['paid, unreadable', grouped(s.unreadable)]);
  if (s.notAsDocumented > 0)
    rows.push(['not as documented', `${grouped(s.notAsDocumented)} (of the ok rows)`]);
  if (s.notSent > 0) rows.push(['not sent', grouped(s.notSent)]);
  if (s.abandoned > 0) rows.push(['abandoned in flight', `${grouped(s.abandoned)} (may have been paid)`]);
  if (s.unanswered > 0)
    rows.push(['may have been paid', `${grouped(s.unanswered)} (sent, no answer in time; not sent again)`]);
  if (s.pace && s.requests > 0) rows.push(['pace', paceReachedText(s.pace)]);
  if (s.attempts > s.requests) rows.push(['retries', grouped(s.attempts - s.requests)]);
  if (s.throttled > 0) rows.push(['429 answers', throttledText(s.throttled, s.attempts)]);
  rows.push(['time', seconds(s.elapsedMs)]);
  const lines = [`${title}: ${s.input} -> ${s.output}`, indent(twoColumns(rows))];
  lines.push(...examples(s.invalidExamples));
  lines.push(`  answer cache: ${s.cache}`);
  if (s.store !== undefined) lines.push(`  shared answer store: ${s.store}`);
  if (s.inputError) {
    lines.push(
      `  stopped sending: ${s.inputError}. The answers that arrived are in the answer cache: mend the file and run the same command again; nothing is bought twice`,
    );
  } else if (s.stopped) {
    const when = s.resumeAt ? ` after ${s.resumeAt} (when the service said to come back)` : '';
    const why = s.storeError ?? (s.storeRefused ? STORE_BUDGET_SPENT : stopText(s.stopped));
    lines.push(`  stopped sending: ${why}; ${carryOn(s, when)}`);
  }
  if (s.breakdown && s.breakdown.rows > 0) {
    lines.push('', 'What came back:', indent(breakdownText(printableLabels(s.breakdown), grouped)));
    if (s.breakdown.fields.some((f) => f.values.some((v) => v.meaning !== undefined)))
      lines.push(`  (${LIKELY_NOTE})`);
  }
  return lines.join('\n');
}

/** What the user must know beyond the counts (for stderr): files, abandoned requests, lost answers. */
export function bulkNotes(s: BulkSummary, cachePath: string): string {
  const notes: string[] = [];
  if (s.unreadable > 0) {
    notes.push(
      `${grouped(s.unreadable)} row${s.unreadable === 1 ? ' has' : 's have'} a paid, unreadable answer: the service was paid (it answered 200) but the body was cut, too big, or not a JSON object. What arrived is kept in the answer cache; these are not asked again automatically. --retry-unreadable asks again, at one transaction each (--dry-run --retry-unreadable counts them).`,
    );
  }
  if (s.askedAgain > 0) {
    notes.push(
      `--retry-unreadable: ${grouped(s.askedAgain)} paid-unreadable answers were asked for again (one transaction each).`,
    );
  }
  if (s.notAsDocumented > 0) {
    const extra =
      s.extraColumns.length > 0 ? `; extra columns added: ${s.extraColumns.map(printable).join(', ')}` : '';
    notes.push(
      `${grouped(s.notAsDocumented)} answer${s.notAsDocumented === 1 ? '' : 's'} differed from the API description (see the status column); everything that arrived was kept${extra}.`,
    );
  }
  if (s.unreadableCacheLines > 0) {
    notes.push(
      `${grouped(s.unreadableCacheLines)} line${s.unreadableCacheLines === 1 ? '' : 's'} of the answer cache could not be read (torn by a kill, or not an answer) and ${s.unreadableCacheLines === 1 ? 'was' : 'were'} skipped.`,
    );
  }
  if (s.rescuedImported > 0) {
    notes.push(
      `${grouped(s.rescuedImported)} answers that an earlier run could not write (disk full) were moved into the answer cache from its rescue file.`,
    );
  }
  if (s.abandoned > 0) {
    notes.push(
      `${grouped(s.abandoned)} request${s.abandoned === 1 ? ' was' : 's were'} still in flight when the run stopped and ${s.abandoned === 1 ? 'was' : 'were'} abandoned: the service may have been paid for ${s.abandoned === 1 ? 'it' : 'them'}, and a rerun asks again.`,
    );
  }
  if (s.unanswered > 0) {
    const one = s.unanswered === 1;
    notes.push(
      `${grouped(s.unanswered)} request${one ? ' was' : 's were'} sent but got no answer (--timeout passed, or the connection was lost while waiting): the service may have been paid for ${one ? 'it' : 'them'}, so ${one ? 'it was' : 'they were'} not sent again (their rows say so). A rerun asks again, at one more transaction each if the service did bill them; a longer --timeout may help.`,
    );
  }
  if (s.outputError) {
    notes.push(
      `The output could not be written (${s.outputError}); it was not written. Every answer that arrived is in the answer cache: free some space and run the same command again; nothing is bought twice.`,
    );
  }
  const u = s.unsaved;
  if (u) {
    const what = `The answer cache ${cachePath} could not be written (${u.reason}); the run stopped sending and the output was not written.`;
    if (u.count === 0) notes.push(`${what} No answer was lost: every answer that arrived is in it.`);
    else if (u.where === 'journal')
      notes.push(
        `${what} ${grouped(u.count)} answers that arrived meanwhile were written to it after all: none lost.`,
      );
    else if (u.where === 'rescue')
      notes.push(
        `${what} ${grouped(u.count)} paid answers that could not go into it were saved in ${u.rescuePath}; the next run with this cache moves them into it, so none is bought again.`,
      );
    else
      notes.push(
        `${what} ${grouped(u.count)} paid answer${u.count === 1 ? '' : 's'} could not be saved anywhere; a rerun buys ${u.count === 1 ? 'it' : 'them'} again (and nothing else).`,
      );
  }
  return notes.join('\n');
}

export function dryRunReport(title: string, s: BulkPlan, budget: number | undefined): string {
  const rows: [string, string][] = [
    ['rows', grouped(s.rows)],
    ['invalid rows', s.blank > 0 ? `${grouped(s.invalid)} (${grouped(s.blank)} blank)` : grouped(s.invalid)],
    ['distinct valid requests', grouped(s.distinct)],
    [
      'already in the cache',
      s.unreadable > 0
        ? `${grouped(s.cached)} (${grouped(s.unreadable)} paid, unreadable)`
        : grouped(s.cached),
    ],
    ...(s.store === undefined
      ? []
      : [['in the shared store', `${grouped(s.inStore)} (free)`] as [string, string]]),
    ['transactions to spend', grouped(s.transactions)],
    ...fileRow(s),
  ];
  const mapped = Object.entries(s.mapping)
    .map(([field, column]) => `${field} <- "${printable(column)}"`)
    .join(', ');
  const lines = [
    `Dry run of ${title} on ${s.input} (nothing sent)`,
    `  columns: ${mapped}`,
    indent(twoColumns(rows)),
    ...examples(s.invalidExamples),
    `  answer cache: ${s.cache}`,
  ];
  if (s.store !== undefined) lines.push(`  shared answer store: ${s.store}`);
  const toBuy = s.distinct - s.cached - s.inStore;
  if (budget !== undefined && toBuy > budget) {
    lines.push(
      `  --max-transactions ${grouped(budget)} would stop the run before ${grouped(toBuy - budget)} of them`,
    );
  }
  return lines.join('\n');
}

function examples(list: readonly { row: number; message: string }[]): string[] {
  if (list.length === 0) return [];
  return [
    '  first invalid rows (blank ones aside):',
    ...list.map((e) => `    row ${e.row}: ${printable(e.message)}`),
  ];
}

const STORE_BUDGET_SPENT =
  "the shared answer store's budget is spent (its cap per month, --max-transactions-per-month): nothing more was sent";

function stopText(reason: string): string {
  switch (reason) {
    case 'budget':
      return 'the --max-transactions budget is spent';
    case 'auth':
      return 'the API key was refused (401)';
    case 'allowance':
      return 'the transaction allowance is used up, or the service asked for a long wait (429)';
    case 'service':
      return 'the service kept failing';
    case 'storage':
      return 'a file could not be written';
    default:
      return reason;
  }
}

// A label is the service's text: shown on one line, with no control character a terminal obeys.
function printableLabels(b: Breakdown): Breakdown {
  return {
    ...b,
    fields: b.fields.map((f) => ({
      ...f,
      values: f.values.map((v) => ({ ...v, label: printable(v.label) })),
    })),
  };
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(2)} s` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * What was found in the input: a CSV's encoding and separator when they are not UTF-8 and commas
 * (said, since the output keeps them); always for a workbook or JSON Lines.
 */
function fileRow(s: {
  readonly layout: CsvLayout | undefined;
  readonly inputKind: FileKind | undefined;
  readonly found: string | undefined;
}): [string, string][] {
  const { layout, found } = s;
  if (found === undefined) return [];
  if (!layout) return [['file', found]];
  if (layout.encoding === 'utf-8' && layout.delimiter === ',') return [];
  const bom = outputHasBom(layout) ? ' with a BOM' : '';
  return [['file', `${found}; output in UTF-8${bom}, same separator`]];
}

/**
 * What to do to carry on after a stop. Stopped by its own --max-transactions, the same command
 * buys at most as many again: to finish, the cap is raised, as the README says (issue 40).
 */
function carryOn(s: BulkSummary, when: string): string {
  const ownCap = s.stopped === 'budget' && !('storeRefused' in s && s.storeRefused);
  return ownCap
    ? 'raise --max-transactions and run the same command again to carry on (the answers already bought come from the answer cache, free)'
    : `run the same command again${when} to carry on`;
}
