// The extension's command ids and the `contributes` section of package.json, derived from the core
// catalog (one command and one chat tool per operation, titled with its title) and from
// settings-schema.ts.
// `pnpm --filter @enrich/vscode manifest` writes it into package.json; a unit test fails when the
// two disagree, so that a change to the catalog cannot leave the manifest behind.
import {
  OPERATIONS,
  type Operation,
  operationInputSchema,
  operationSummary,
  PERMITTED_USE,
} from '@enrich/core';
import { ENRICHABLE_FILE } from './file-run/kinds';
import { CONFIG_SECTION, SETTINGS, type SettingName, settingId } from './settings-schema';

export const CATEGORY = 'Enrichment';
export const VIEW_CONTAINER = 'enrich';
export const OPERATIONS_VIEW = 'enrich.operations';
export const HISTORY_VIEW = 'enrich.history';
export const SPEND_VIEW = 'enrich.spend';
export const HISTORY_ITEM = 'historyEntry';
export const OPERATION_ITEM = 'operation';
/** A context key, true while this session tries the extension on its own sandbox. */
export const TRYING_CONTEXT = 'enrich.trying';

export const COMMAND = {
  setApiKey: 'enrich.setApiKey',
  clearApiKey: 'enrich.clearApiKey',
  useSandbox: 'enrich.useSandbox',
  tryWithoutKey: 'enrich.tryWithoutKey',
  useRealService: 'enrich.useRealService',
  enrichCsv: 'enrich.enrichCsv',
  showHistory: 'enrich.showHistory',
  copyLastRequestAsCurl: 'enrich.copyLastRequestAsCurl',
  showSpend: 'enrich.showSpend',
  openResult: 'enrich.history.open',
  rerun: 'enrich.history.rerun',
  copyAsCurl: 'enrich.history.copyAsCurl',
  deleteEntry: 'enrich.history.delete',
  clearHistory: 'enrich.history.clear',
  forgetPerson: 'enrich.forgetPerson',
} as const;

export type CommandId = (typeof COMMAND)[keyof typeof COMMAND];

export function operationCommandId(op: Operation): string {
  return `enrich.run.${op.id}`;
}

export function operationCommandIdOf(id: Operation['id']): string {
  return `enrich.run.${id}`;
}

/** The chat tool's name (`enrich_phone_lookup`): what vscode.lm.registerTool and invokeTool take. */
export function chatToolName(op: Operation): string {
  return `enrich_${op.id.replaceAll('-', '_')}`;
}

/** What a person types in chat after `#`: `phoneLookup`. */
export function chatToolReference(op: Operation): string {
  return op.id.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The tag every chat tool of the extension carries, to find them in vscode.lm.tools. */
export const CHAT_TOOL_TAG = 'enrich';

export const CHAT_COST_TEXT =
  'Each call spends one paid transaction of the API key (a no match too), unless the History of the Enrichment extension already holds the answer to the same input: then it is answered from it, free, and says so. Invalid input is refused before sending and costs nothing.';

// Chat and agent mode: one tool per operation, its input the API's own field names with core's
// bounds and rules (core's tool-schema.ts, which the MCP server shares), its descriptions what it
// does, what it costs and what the data may be used for.
function chatTools() {
  return OPERATIONS.map((op) => ({
    name: chatToolName(op),
    displayName: op.title,
    toolReferenceName: chatToolReference(op),
    canBeReferencedInPrompt: true,
    tags: [CHAT_TOOL_TAG],
    userDescription: `${op.title} with the enrichment API; spends 1 transaction unless the History holds the answer. ${PERMITTED_USE}`,
    modelDescription: [
      operationSummary(op),
      CHAT_COST_TEXT,
      'Coded values are explained in the text answer as likely meanings.',
      PERMITTED_USE,
    ].join(' '),
    inputSchema: operationInputSchema(op),
  }));
}

interface CommandContribution {
  readonly command: string;
  readonly title: string;
  readonly category?: string;
  readonly icon?: string;
}

// Commands that act on a history entry take it as their argument, so the palette does not list them.
// `palette` is true, false, or a when clause.
const GENERAL_COMMANDS: readonly (CommandContribution & { readonly palette: boolean | string })[] = [
  { command: COMMAND.setApiKey, title: 'Set API Key', category: CATEGORY, palette: true },
  { command: COMMAND.clearApiKey, title: 'Clear API Key', category: CATEGORY, palette: true },
  { command: COMMAND.useSandbox, title: 'Use Sandbox', category: CATEGORY, palette: true },
  { command: COMMAND.tryWithoutKey, title: 'Try Without a Key', category: CATEGORY, palette: true },
  {
    command: COMMAND.useRealService,
    title: 'Return to the Real Service',
    category: CATEGORY,
    palette: TRYING_CONTEXT,
  },
  // The id stays enrichCsv (key bindings and scripts name it); the title says it takes more than CSV.
  { command: COMMAND.enrichCsv, title: 'Enrich File...', category: CATEGORY, palette: true },
  { command: COMMAND.showHistory, title: 'Show History', category: CATEGORY, palette: true },
  {
    command: COMMAND.copyLastRequestAsCurl,
    title: 'Copy Last Request as curl',
    category: CATEGORY,
    palette: true,
  },
  { command: COMMAND.showSpend, title: 'Show Spend', category: CATEGORY, icon: '$(table)', palette: true },
  { command: COMMAND.openResult, title: 'Open Result', category: CATEGORY, palette: false },
  // Says what it costs: a re-run is always sent, even when the History holds its answer.
  { command: COMMAND.rerun, title: 'Re-run (spends 1 transaction)', icon: '$(refresh)', palette: false },
  { command: COMMAND.copyAsCurl, title: 'Copy as curl', icon: '$(copy)', palette: false },
  { command: COMMAND.deleteEntry, title: 'Delete', icon: '$(trash)', palette: false },
  { command: COMMAND.clearHistory, title: 'Clear History', icon: '$(clear-all)', palette: false },
  // A person's request (issue 38): the History, the answer caches, and the suppression list.
  { command: COMMAND.forgetPerson, title: 'Forget a Person', category: CATEGORY, palette: true },
];

export function contributes() {
  const onHistoryEntry = `view == ${HISTORY_VIEW} && viewItem == ${HISTORY_ITEM}`;
  return {
    commands: [
      ...OPERATIONS.map((op) => ({ command: operationCommandId(op), title: op.title, category: CATEGORY })),
      ...GENERAL_COMMANDS.map(({ palette: _palette, ...command }) => command),
    ],
    menus: {
      commandPalette: GENERAL_COMMANDS.filter((c) => c.palette !== true).map((c) => ({
        command: c.command,
        when: c.palette === false ? 'false' : c.palette,
      })),
      // On the files it takes (.csv, .tsv, .txt, .xlsx, .jsonl, .ndjson): the explorer's context
      // menu and the editor's title bar menu.
      'explorer/context': [{ command: COMMAND.enrichCsv, when: ENRICHABLE_FILE, group: '7_modification@9' }],
      'editor/title': [{ command: COMMAND.enrichCsv, when: ENRICHABLE_FILE, group: '1_run@9' }],
      'view/title': [
        { command: COMMAND.clearHistory, when: `view == ${HISTORY_VIEW}`, group: 'navigation' },
        { command: COMMAND.showSpend, when: `view == ${SPEND_VIEW}`, group: 'navigation' },
      ],
      'view/item/context': [
        { command: COMMAND.rerun, when: onHistoryEntry, group: 'inline@1' },
        { command: COMMAND.rerun, when: onHistoryEntry, group: '1_entry@1' },
        { command: COMMAND.copyAsCurl, when: onHistoryEntry, group: '1_entry@2' },
        { command: COMMAND.deleteEntry, when: onHistoryEntry, group: '2_delete@1' },
      ],
    },
    viewsContainers: {
      activitybar: [{ id: VIEW_CONTAINER, title: CATEGORY, icon: 'media/enrich.svg' }],
    },
    views: {
      [VIEW_CONTAINER]: [
        { id: OPERATIONS_VIEW, name: 'Operations' },
        { id: HISTORY_VIEW, name: 'History' },
        { id: SPEND_VIEW, name: 'Spend This Month' },
      ],
    },
    // Shown while the Spend view is empty.
    viewsWelcome: [
      {
        view: SPEND_VIEW,
        contents: `No paid transaction recorded this month.\n[Show Spend by Month](command:${COMMAND.showSpend})`,
      },
    ],
    languageModelTools: chatTools(),
    configuration: {
      title: CATEGORY,
      properties: Object.fromEntries(
        (Object.keys(SETTINGS) as SettingName[]).map((name) => [settingId(name), SETTINGS[name]]),
      ),
    },
  };
}

export { CONFIG_SECTION };
