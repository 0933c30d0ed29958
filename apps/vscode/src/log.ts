// The "Enrichment" output channel. Lines say what was called and what came back, never a header
// or the key; as a second guard, the current key is masked out of every line before it is written.
import { REDACTED_KEY } from '@enrich/core';
import * as vscode from 'vscode';

export class Log implements vscode.Disposable {
  private readonly channel = vscode.window.createOutputChannel('Enrichment', { log: true });
  private key: string | undefined;

  /** Tells the log which key to mask; called whenever the key changes. */
  mask(key: string | undefined): void {
    this.key = key;
  }

  info(message: string): void {
    this.channel.info(this.scrub(message));
  }

  warn(message: string): void {
    this.channel.warn(this.scrub(message));
  }

  error(message: string): void {
    this.channel.error(this.scrub(message));
  }

  private scrub(message: string): string {
    return this.key ? message.split(this.key).join(REDACTED_KEY) : message;
  }

  dispose(): void {
    this.channel.dispose();
  }
}
