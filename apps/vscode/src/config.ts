// Typed access to the extension's settings (never the key: that lives in SecretStorage only).
import type { Bases } from '@enrich/bulk';
import { isLoopback } from '@enrich/core';
import * as vscode from 'vscode';
import { CONFIG_SECTION, SETTINGS, type SettingName } from './settings-schema';

export class Config {
  /** This session's base for both groups ("Try Without a Key"); the user's settings stay as they are. */
  private sessionBase: string | undefined;
  private readonly sessionChanged = new vscode.EventEmitter<void>();

  private get section(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration(CONFIG_SECTION);
  }

  private read<T>(name: SettingName): T {
    return this.section.get<T>(name, SETTINGS[name].default as T);
  }

  get baseUrl(): string {
    return this.sessionBase ?? this.read<string>('baseUrl');
  }

  get baseUrlV3(): string {
    return this.sessionBase ?? this.read<string>('baseUrlV3');
  }

  /**
   * Where calls go now, and whether that is this session's own sandbox: its answers and its spend
   * are never taken for a real service's (the answer cache's namespace, the ledger's origin).
   */
  get bases(): Bases {
    return { baseUrl: this.baseUrl, baseUrlV3: this.baseUrlV3, sandbox: this.sessionBase !== undefined };
  }

  /** The session's own sandbox, when "Try Without a Key" is on. */
  get trialBase(): string | undefined {
    return this.sessionBase;
  }

  /** Points both groups at `base` for this session only (undefined: back to the settings). */
  useForSession(base: string | undefined): void {
    this.sessionBase = base;
    this.sessionChanged.fire();
  }

  get requestTimeoutMs(): number {
    const { minimum, maximum } = SETTINGS.requestTimeoutSeconds;
    const raw = Number(this.read<number>('requestTimeoutSeconds'));
    // Not a number (settings.json edited by hand): the default, never NaN, which core's transports
    // refuse as a deadline (and which used to mean none at all).
    const given = Number.isFinite(raw) ? raw : SETTINGS.requestTimeoutSeconds.default;
    const seconds = Math.min(maximum, Math.max(minimum, given));
    return Math.round(seconds * 1000);
  }

  get historySize(): number {
    const { minimum, maximum } = SETTINGS.historySize;
    return Math.min(maximum, Math.max(minimum, Math.floor(this.read<number>('historySize'))));
  }

  /** Requests at a time in Enrich File: 'auto' (the pace the service allows), or a fixed number. */
  get concurrency(): number | 'auto' {
    const read = this.read<unknown>('concurrency');
    const { minimum, maximum } = SETTINGS.concurrency;
    // A whole number in range, also typed as text ("8"), fixes it; anything else hand-edited (a
    // typo, 0, 300, 2.5) is 'auto', the default, which slows down by itself when the service says so.
    const value = typeof read === 'string' && /^\d+$/.test(read.trim()) ? Number(read) : read;
    return typeof value === 'number' && Number.isInteger(value) && value >= minimum && value <= maximum
      ? value
      : 'auto';
  }

  get maxConcurrency(): number {
    const { minimum, maximum, default: fallback } = SETTINGS.maxConcurrency;
    const read = this.read<unknown>('maxConcurrency');
    const value = typeof read === 'number' && Number.isFinite(read) ? Math.floor(read) : fallback;
    return Math.min(maximum, Math.max(minimum, value));
  }

  /** Requests per second never exceeded, or undefined for no cap (the setting's 0). */
  get maxRate(): number | undefined {
    const read = this.read<unknown>('maxRate');
    return typeof read === 'number' && Number.isFinite(read) && read > 0 ? read : undefined;
  }

  /** Where results open: the view for people, or the JSON document. */
  get resultView(): 'view' | 'json' {
    return this.read<string>('resultView') === 'json' ? 'json' : 'view';
  }

  /** How old a History answer may be and still be offered instead of a new call; 0 offers none. */
  get reuseAnswersMs(): number {
    const { minimum, maximum, default: fallback } = SETTINGS.reuseAnswersHours;
    const read = this.read<unknown>('reuseAnswersHours');
    // A hand-edited value that is not a number keeps the default: the safe side costs nothing.
    const hours = typeof read === 'number' && Number.isFinite(read) ? read : fallback;
    return Math.min(maximum, Math.max(minimum, hours)) * 3_600_000;
  }

  /** True when either base URL points at this machine: a local sandbox, not the paid service. */
  get usesSandbox(): boolean {
    return [this.baseUrl, this.baseUrlV3].some((url) => isLoopback(hostOf(url)));
  }

  /** Points both version groups at one origin (the sandbox serves both), in the user's settings. */
  async useBaseUrl(url: string): Promise<void> {
    await this.section.update('baseUrl', url, vscode.ConfigurationTarget.Global);
    await this.section.update('baseUrlV3', url, vscode.ConfigurationTarget.Global);
  }

  onDidChange(listener: () => void): vscode.Disposable {
    return vscode.Disposable.from(
      this.sessionChanged.event(listener),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(CONFIG_SECTION)) listener();
      }),
    );
  }
}

function hostOf(url: string): string {
  return /^[a-z]+:\/\/(\[[^\]]*\]|[^/:?#]+)/i.exec(url.trim())?.[1] ?? '';
}
