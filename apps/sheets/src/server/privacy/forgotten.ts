// The people forgotten in this spreadsheet (issue 38): core's suppression list, checked before the
// cache and before any request by every path that may pay (formulas, sidebar Check and chunks, the
// automation), so that a request carrying a forgotten person is refused locally in core's words,
// nothing sent, nothing kept. Its rules (what is hashed, what a hit says) are core's
// (suppression.ts, identity.ts); here is only where the list lives.
//
// Where: the document's properties, so that it holds for everyone working in the spreadsheet (the
// owner's formulas, every editor's runs and automation) and custom functions can read it. One
// property per person, `enrich.forgotten.<hash>` = "<kind> <UTC day>" (adding one never rewrites
// another's), and the list's random salt in `enrich.forgotten.salt`. No clear text: the hash is
// HMAC-SHA-256 of the canonical identity under the salt (Utilities.computeHmacSha256Signature).
import {
  type CleanInput,
  type Identity,
  type Operation,
  type RowPlan,
  SuppressionCheck,
  type SuppressionEntry,
  suppressionHash,
} from '@enrich/core/universal';

const PREFIX = 'enrich.forgotten.';
const SALT = `${PREFIX}salt`;

/** HMAC-SHA-256 in lower-case hex, as core's Hmac. */
function hmac(salt: string, text: string): string {
  return Utilities.computeHmacSha256Signature(text, salt, Utilities.Charset.UTF_8)
    .map((b) => (b & 255).toString(16).padStart(2, '0'))
    .join('');
}

function documentProperties(): GoogleAppsScript.Properties.Properties | null {
  return PropertiesService.getDocumentProperties();
}

/** The list as core checks it (an empty one where there is no document). */
export function forgottenList(): SuppressionCheck {
  const all = documentProperties()?.getProperties() ?? {};
  const entries: SuppressionEntry[] = [];
  for (const [key, text] of Object.entries(all)) {
    if (!key.startsWith(PREFIX) || key === SALT) continue;
    const [kind, on] = text.split(' ') as [SuppressionEntry['kind'], string];
    entries.push({ hash: key.slice(PREFIX.length), kind, on });
  }
  return new SuppressionCheck(hmac, all[SALT] ?? '', entries);
}

/** Adds the identities not on the list yet, forgotten on `on` (UTC day); returns how many were added. */
export function addForgotten(identities: readonly Identity[], on: string): number {
  const props = documentProperties() as GoogleAppsScript.Properties.Properties;
  // The salt is made once, at the first forget, from two random UUIDs (244 random bits).
  let salt = props.getProperty(SALT);
  if (!salt) {
    salt = (Utilities.getUuid() + Utilities.getUuid()).replace(/-/g, '');
    props.setProperty(SALT, salt);
  }
  const list = forgottenList();
  const added: Record<string, string> = {};
  for (const identity of identities) {
    if (list.entryFor([identity])) continue;
    added[PREFIX + suppressionHash(hmac, salt, identity)] = `${identity.kind} ${on}`;
  }
  props.setProperties(added);
  return Object.keys(added).length;
}

/**
 * The rows planned for `op`, each request carrying a forgotten person made invalid with core's
 * words ("forgotten at the person's request on DATE; nothing was sent"): they are never looked up
 * in the cache, counted by Check, or sent. The list is read only when there is a request.
 */
export function refuseForgotten<P extends RowPlan & { input?: CleanInput }>(op: Operation, plans: P[]): P[] {
  if (!plans.some((plan) => plan.kind === 'request')) return plans;
  const list = forgottenList();
  if (list.size === 0) return plans;
  return plans.map((plan) => {
    const why = plan.kind === 'request' && plan.input ? list.refusal(op, plan.input) : undefined;
    return why ? ({ kind: 'invalid', message: why } as P) : plan;
  });
}
