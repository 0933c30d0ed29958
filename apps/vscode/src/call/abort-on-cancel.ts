// A VS Code cancellation (a progress notification's Cancel, a chat request's stop) as the
// AbortSignal core's transports and waits take. A token already cancelled gives a signal already
// aborted: nothing is sent for a call cancelled before it started.
export function abortOnCancel(token: {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => unknown): { dispose(): unknown };
}): { readonly signal: AbortSignal; dispose(): void } {
  const abort = new AbortController();
  if (token.isCancellationRequested) abort.abort();
  const subscription = token.onCancellationRequested(() => abort.abort());
  return { signal: abort.signal, dispose: () => subscription.dispose() };
}
