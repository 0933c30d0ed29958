// A problem that stops a bulk run before anything is sent (a file that cannot be read, locked, or
// written; a CSV whose columns cannot feed the operation; two flags naming one file). Its message
// is for the user as is. Clients map it to their own way of saying so (the CLI: exit code 2).
export class BulkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BulkError';
  }
}

/**
 * The output path holds a file that is not an output of ours (a document, a report, a journal):
 * refused before anything is sent. Each client says how to replace it anyway (the CLI: --force;
 * VS Code: a Replace button), then runs again with `force`.
 */
export class OutputInTheWay extends BulkError {
  constructor(readonly path: string) {
    super(
      `${path} exists and is not an output of enrich (its first row is not the input's columns followed by enrich's). Nothing was sent.`,
    );
    this.name = 'OutputInTheWay';
  }
}
