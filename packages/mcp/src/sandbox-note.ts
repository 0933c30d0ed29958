// With --sandbox, every tool result says first that its data is synthetic and nothing was billed
// (issue 40): the sandbox's people are made up, and a model that is not told may present one as a
// real person. Said in the text a model reads and in _meta for clients.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export const SANDBOX_NOTE =
  'Sandbox: this result comes from the embedded sandbox. Its data is synthetic (made-up people, not real ones) and nothing was billed.';

export function withSandboxNote(result: CallToolResult): CallToolResult {
  return {
    ...result,
    content: [{ type: 'text', text: SANDBOX_NOTE }, ...result.content],
    _meta: { ...result._meta, 'enrich/sandbox': true },
  };
}
