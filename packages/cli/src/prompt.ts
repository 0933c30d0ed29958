// Asks for the API key on the terminal without echoing it (not even as asterisks, which would
// tell its length to anyone looking over a shoulder).

export interface PromptIo {
  readonly stdin: NodeJS.ReadStream;
  readonly stderr: NodeJS.WritableStream;
}

export function promptHidden(question: string, io: PromptIo): Promise<string | undefined> {
  const { stdin, stderr } = io;
  return new Promise((resolve) => {
    stderr.write(question);
    const wasRaw = stdin.isRaw;
    stdin.setRawMode?.(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    let typed = '';
    const done = (value: string | undefined) => {
      stdin.off('data', onData);
      stdin.setRawMode?.(wasRaw);
      stdin.pause();
      stderr.write('\n');
      resolve(value);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return done(typed);
        // Ctrl-C or Ctrl-D: give up.
        if (char === '\u0003' || char === '\u0004') return done(undefined);
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else if (char >= ' ') typed += char;
      }
    };
    stdin.on('data', onData);
  });
}
