// What the data may be used for, as the API description states it. Issue 26 asks for this wording
// once, in core's vocabulary, shown where every client starts; core has none yet, so it is here for
// now (the MCP tools' descriptions and the server's instructions read it) and should move to core.
export const PERMITTED_USE =
  'Permitted use: marketing and lead validation only. Never use this data for consumer-report purposes such as credit, insurance or employment eligibility decisions (the provider is not a consumer reporting agency).';
