// Why the pace last changed, in the words every client shows beside the current rate
// ("slower: the service answered 429"). One table, so that the CLI, VS Code and Sheets say it alike.

export type PaceChange =
  | 'start'
  | 'fixed'
  | 'faster'
  | 'slower-throttled'
  | 'slower-queueing'
  | 'slower-failing'
  | 'paused';

export const PACE_CHANGES: Readonly<Record<PaceChange, string>> = {
  start: 'starting small, to find the pace the service allows',
  fixed: 'a fixed number at a time, as set',
  faster: 'faster: answers keep coming in the same time',
  'slower-throttled': 'slower: the service answered 429',
  'slower-queueing': 'slower: answers are taking longer (the service is queueing)',
  'slower-failing': 'slower: the service failed or timed out',
  paused: 'paused: the service refused every request (429)',
};
