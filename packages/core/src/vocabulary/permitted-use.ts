// What the data may be used for, as the API description states it (its point 4): one wording,
// shown where every client starts (the MCP tools and server instructions, the VS Code chat tools,
// `enrich --help`, the Sheets help and sidebar, the READMEs), so that people and assistants read
// the same terms.
export const PERMITTED_USE =
  'Permitted use: marketing and lead validation only. Never use this data for regulated consumer-report purposes such as credit, insurance or employment eligibility decisions (the provider is not a consumer reporting agency).';
