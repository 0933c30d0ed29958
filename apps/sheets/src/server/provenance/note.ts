// Where a written answer came from, as the note on its row's Status cell (or, for a formula frozen
// into values, its first cell): bought on a date, reused from an answer kept since it was bought,
// and whether it came from a sandbox or test service rather than the provider's documented one. A
// note, not developer metadata: anyone who hovers the cell reads it, it costs one setNotes call per
// write, and copying or freezing the cells keeps it. The sidebar shows it for the selected cell.
import {
  DEFAULT_BASE_URL,
  DEFAULT_BASE_URL_V3,
  type Operation,
  operationOrigin,
  type Settings,
} from '@enrich/core/universal';

/** Every provenance note starts so; the sidebar looks for it. */
export const NOTE_PREFIX = 'Enrich: ';

export interface Origin {
  /** When the answer was paid for (ms). */
  readonly paidAt: number;
  /** Bought by the write that shows it (a run's chunk), rather than reused from a kept answer. */
  readonly bought: boolean;
}

/** "2026-11-22 09:00 UTC". */
export function dateText(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/**
 * The service an operation's answers come from when it is not the provider's documented one (a
 * sandbox or a test service the settings point at): its origin; null for the documented service.
 */
export function otherService(
  op: Operation,
  settings: Pick<Settings, 'baseUrl' | 'baseUrlV3'>,
): string | null {
  const used = operationOrigin(op, settings);
  const usual = operationOrigin(op, { baseUrl: DEFAULT_BASE_URL, baseUrlV3: DEFAULT_BASE_URL_V3 });
  return used === usual ? null : (used ?? 'another service');
}

/** The note for a row answered by `op`: how it was had, when it was bought, and from where. */
export function provenanceNote(op: Operation, origin: Origin, service: string | null): string {
  const how = origin.bought
    ? `bought ${dateText(origin.paidAt)}`
    : `reused from a kept answer (bought ${dateText(origin.paidAt)}; not paid again)`;
  const where = service
    ? ` Sandbox or test service ${service}, not the provider's: its data may be synthetic.`
    : '';
  return `${NOTE_PREFIX}${op.title}, ${how}.${where}`;
}
