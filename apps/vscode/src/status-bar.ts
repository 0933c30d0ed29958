// One status bar item: whether a key is set, and whether calls go to a local sandbox.
import * as vscode from 'vscode';
import type { Config } from './config';
import { COMMAND } from './manifest';

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(
    'enrich.status',
    vscode.StatusBarAlignment.Left,
    0,
  );

  constructor(private readonly config: Config) {
    this.item.name = 'Enrichment';
  }

  update(hasKey: boolean): void {
    const sandbox = this.config.usesSandbox;
    this.item.text = `${hasKey ? '$(key)' : '$(warning)'} Enrichment${sandbox ? ' (sandbox)' : ''}`;
    this.item.tooltip = [
      hasKey ? 'API key: set (in VS Code secret storage)' : 'API key: not set. Click to set it.',
      `v2 base: ${this.config.baseUrl}`,
      `v3 base: ${this.config.baseUrlV3}`,
      sandbox ? 'Calls go to a local sandbox, not the paid service.' : '',
    ]
      .filter(Boolean)
      .join('\n');
    this.item.command = hasKey ? COMMAND.showHistory : COMMAND.setApiKey;
    this.item.backgroundColor = hasKey ? undefined : new vscode.ThemeColor('statusBarItem.warningBackground');
    this.item.show();
  }

  get text(): string {
    return this.item.text;
  }

  dispose(): void {
    this.item.dispose();
  }
}
