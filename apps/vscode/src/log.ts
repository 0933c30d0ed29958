// The "Enrichment" output channel. Lines say what was called and what came back, never a header
// or the key; as a second guard, every line passes through core's scrubber for the current key.
import { createScrubber } from '@enrich/core';
import * as vscode from 'vscode';

export class Log implements vscode.Disposable {
  private readonly channel = vscode.window.createOutputChannel('Enrichment', { log: true });
  private scrubber: (text: string) => string = (text) => text;

  /** Tells the log which key to hide; called whenever the key changes. */
  mask(key: string | undefined): void {
    this.scrubber = createScrubber(key ? [key] : []);
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
    return this.scrubber(message);
  }

  dispose(): void {
    this.channel.dispose();
  }
}
