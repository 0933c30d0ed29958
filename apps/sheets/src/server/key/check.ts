// The free key check, run when the user saves a key in the sidebar (and on request): for each base
// in use (the v2 and v3 groups live on separate hosts) core plans a request that the service must
// refuse as incomplete, an empty body to a cheap operation; 401 means the key was refused, 400 that
// it was accepted, and neither costs a transaction (README, "Whose key"). Sent like every request:
// fetchAll, errors muted, redirects never followed.
import { checkApiKey, type KeyCheckResult, planKeyCheck, readKeyCheck } from '@enrich/core/universal';
import { readFetched } from '../send.js';
import { asCoreSettings, isAllowed, noKeyMessageForSidebar, userSettings } from './settings.js';

export type { KeyCheckResult } from '@enrich/core/universal';

/** The verdict per base on the current user's key (the sidebar's key). */
export function checkKey(): KeyCheckResult[] {
  const stored = userSettings();
  if (!stored.apiKey) throw new Error(noKeyMessageForSidebar());
  const keyProblem = checkApiKey(stored.apiKey);
  if (keyProblem) throw new Error(keyProblem);
  const plan = planKeyCheck(asCoreSettings(stored));
  if (!plan.ok) throw new Error(plan.message);
  // A base saved before the allow-list changed: UrlFetchApp would refuse it, so it is not sent.
  const sendable = plan.checks.filter((check) => isAllowed(check.request.url));
  const answers = readFetched(sendable.map((check) => check.request));
  return plan.checks.map((check) => {
    const i = sendable.indexOf(check);
    if (i < 0) {
      return {
        base: check.base,
        verdict: 'unexpected',
        detail: `Not checked: ${check.base} is not in this add-on's URL allow-list; change the base URL in Settings.`,
      };
    }
    const answer = answers[i];
    return readKeyCheck(
      check.base,
      answer === undefined || 'failure' in answer
        ? { networkError: answer?.failure ?? 'no response' }
        : answer,
    );
  });
}
