// Asking the person before spending, where the MCP client supports elicitation (a form the client
// shows to the person, not to the model). A client without it is not asked: the budget and the
// tools' annotations (not read-only: clients ask before calling them) are the guards then.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';

export type Answer = 'yes' | 'no' | 'unsupported';

export function canAsk(server: Server): boolean {
  return server.getClientCapabilities()?.elicitation !== undefined;
}

/** Asks a yes/no question; `remember` adds a "do not ask again this session" box, reported back. */
export async function ask(
  server: Server,
  message: string,
  remember = false,
): Promise<{ answer: Answer; dontAskAgain: boolean }> {
  if (!canAsk(server)) return { answer: 'unsupported', dontAskAgain: false };
  const properties: Record<string, { type: 'boolean'; title: string; default: boolean }> = {
    confirm: { type: 'boolean', title: 'Spend it', default: false },
  };
  if (remember)
    properties.dontAskAgain = { type: 'boolean', title: 'Do not ask again in this session', default: false };
  try {
    const result = await server.elicitInput({
      message,
      requestedSchema: { type: 'object', properties, required: ['confirm'] },
    });
    const yes = result.action === 'accept' && result.content?.confirm === true;
    return { answer: yes ? 'yes' : 'no', dontAskAgain: yes && result.content?.dontAskAgain === true };
  } catch {
    // The client said it could and then did not answer: spend nothing.
    return { answer: 'no', dontAskAgain: false };
  }
}
