// Text and bytes gathered into one buffer and handed on whole when it is full: one write call per
// batch instead of one per line. Text is encoded as it comes, straight into the buffer; bytes are
// copied in. Before, a batch was a string of a few hundred pieces, flattened and encoded whole at
// each flush, and a part shared by many rows (a result's columns) was encoded again in each: over a
// second of a cached rerun of 1,000,000 rows (the CLI's bench/README.md).
export class ByteBatch {
  private buffer: Buffer;
  private used = 0;

  constructor(
    private readonly size: number,
    /** Takes a full batch; the buffer is the taker's from then on (never written to again here). */
    private readonly take: (bytes: Buffer) => void,
  ) {
    this.buffer = Buffer.allocUnsafe(size);
  }

  /** Bytes held, not yet handed on. */
  get length(): number {
    return this.used;
  }

  /** Appends bytes as they are (copied: the caller may reuse its buffer). */
  bytes(bytes: Buffer): void {
    if (this.used + bytes.length > this.size) this.flush();
    if (bytes.length > this.size) {
      this.take(Buffer.from(bytes));
      return;
    }
    bytes.copy(this.buffer, this.used);
    this.used += bytes.length;
  }

  /** Appends text as UTF-8. */
  text(text: string): void {
    // UTF-8 takes at most 3 bytes for each UTF-16 unit: below that, no need to count them first.
    if (this.used + text.length * 3 > this.size) {
      const length = Buffer.byteLength(text);
      if (this.used + length > this.size) this.flush();
      if (length > this.size) {
        this.take(Buffer.from(text));
        return;
      }
    }
    this.used += this.buffer.write(text, this.used);
  }

  /** Hands on what is held, if anything. */
  flush(): void {
    if (this.used === 0) return;
    const full = this.buffer.subarray(0, this.used);
    this.buffer = Buffer.allocUnsafe(this.size);
    this.used = 0;
    this.take(full);
  }
}
