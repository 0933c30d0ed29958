// One status bar item: whether a key is set (and where it lives), and where calls go: the paid
// service, a local sandbox, or this session's own sandbox ("Try Without a Key").
import * as vscode from 'vscode';
import type { Config } from './config';
import { COMMAND } from './manifest';

export type KeyState = 'stored' | 'session' | 'none';

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(
    'enrich.status',
    vscode.StatusBarAlignment.Left,
    0,
  );

  constructor(private readonly config: Config) {
    this.item.name = 'Enrichment';
  }

  update(key: KeyState): void {
    const trial = this.config.trialBase;
    if (trial) this.showTrial(trial);
    else this.showService(key);
    this.item.show();
  }

  private showTrial(base: string): void {
    this.item.text = '$(beaker) Enrichment: trying without a key';
    this.item.tooltip = [
      `Calls go to a sandbox inside VS Code (${base}): made-up data, nothing is spent.`,
      'Your settings and your API key are unchanged.',
      'Click to return to the real service.',
    ].join('\n');
    this.item.command = COMMAND.useRealService;
    this.item.backgroundColor = undefined;
  }

  private showService(key: KeyState): void {
    const sandbox = this.config.usesSandbox;
    const icon = key === 'none' ? '$(warning)' : '$(key)';
    const where = key === 'session' ? ' (key for this session)' : '';
    this.item.text = `${icon} Enrichment${sandbox ? ' (sandbox)' : ''}${where}`;
    this.item.tooltip = [
      KEY_WORDS[key],
      `v2 base: ${this.config.baseUrl}`,
      `v3 base: ${this.config.baseUrlV3}`,
      sandbox ? 'Calls go to a local sandbox, not the paid service.' : '',
    ]
      .filter(Boolean)
      .join('\n');
    this.item.command = key === 'none' ? COMMAND.setApiKey : COMMAND.showHistory;
    this.item.backgroundColor =
      key === 'none' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}

const KEY_WORDS: Record<KeyState, string> = {
  stored: 'API key: set (in VS Code secret storage)',
  session: 'API key: kept in memory for this session only (secret storage failed)',
  none: 'API key: not set. Click to set it.',
};
