// google.script.run, typed from the server's own exports (as enuchi/React-Google-Apps-Script types
// it from `typeof` its server functions): a misspelt name, a wrong argument or a wrong use of the
// result fails the typecheck instead of failing in Sheets. Only types cross this import: the
// browser bundle holds no server code.
import type * as ServerModule from '../server/index.js';

type Exported = typeof ServerModule;
/** The server functions the sidebar may call: every export but the custom functions' entry. */
type ServerFunctions = {
  [K in keyof Exported as Exported[K] extends (...args: never[]) => unknown
    ? K extends 'customFunction'
      ? never
      : K
    : never]: Exported[K];
};
export type ServerFunctionName = keyof ServerFunctions;

interface ScriptRunner {
  withSuccessHandler(handler: (value: unknown) => void): ScriptRunner;
  withFailureHandler(handler: (error: { message?: string }) => void): ScriptRunner;
}
declare const google: { script: { run: ScriptRunner } };

/** Calls a server function; resolves with what it returns, rejects with its error's message. */
export function call<K extends ServerFunctionName>(
  name: K,
  ...args: Parameters<ServerFunctions[K]>
): Promise<ReturnType<ServerFunctions[K]>> {
  return new Promise((resolve, reject) => {
    const runner = google.script.run
      .withSuccessHandler((value) => resolve(value as ReturnType<ServerFunctions[K]>))
      .withFailureHandler((error) => reject(new Error(error?.message ?? String(error))));
    // google.script.run names each server function as a method of the runner.
    (runner as unknown as Record<K, (...a: Parameters<ServerFunctions[K]>) => void>)[name](...args);
  });
}
