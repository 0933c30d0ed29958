// The one place the SDK looks at the process environment: createClient reads ENRICH_API_KEY,
// ENRICH_BASE_URL and ENRICH_BASE_URL_V3 when its options leave them out, as the CLI and the MCP
// server do. Core also runs where there is no environment (browsers, Apps Script), so `process` is
// never named as a global: it is looked up on globalThis, and where it is absent there is none.

type Environment = Readonly<Record<string, string | undefined>>;

/** The variable's value where the platform has an environment (Node, Deno, Bun); else undefined. */
export function environmentVariable(name: string): string | undefined {
  const host = globalThis as { readonly process?: { readonly env?: Environment } };
  return host.process?.env?.[name];
}
