// A problem that stops a bulk run before anything is sent (a file that cannot be read, locked, or
// written; a CSV whose columns cannot feed the operation; two flags naming one file). Its message
// is for the user as is. Clients map it to their own way of saying so (the CLI: exit code 2).
export class BulkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BulkError';
  }
}
