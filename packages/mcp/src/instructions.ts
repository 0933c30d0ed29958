// The server's instructions: the rules every tool shares (what a call costs, the answer cache, the
// permitted use), said once here rather than in each tool's description, which stays short enough
// for a model to choose by.
import { PERMITTED_USE } from '@enrich/core';

export function instructions(options: { readonly sandbox: boolean }): string {
  return [
    "Tools for a contact-data enrichment API: people's names, postal addresses, e-mail addresses and US phone numbers. Each operation tool's description says what it returns and when to use it.",
    "Cost: each operation tool call for a new question spends one paid transaction of the user's API key, a no match included. The same question again, in any spelling and in any session, is answered free from the local answer cache. Invalid input is refused before sending and costs nothing. check_key, spend and quote are free.",
    "For more than a few inputs, put them in a file and use quote (free) then enrich_file with the quote's token: it pays once per distinct request, never more than quoted. spend (free) says what was spent and what is left of the budget.",
    'Coded values (result codes, line types) are explained in results as likely meanings: the provider does not document them.',
    options.sandbox
      ? 'This server uses the embedded sandbox: every result is synthetic (made-up people, never real ones) and nothing is billed. Say so when you show a result.'
      : '',
    PERMITTED_USE,
  ]
    .filter((line) => line !== '')
    .join('\n');
}
