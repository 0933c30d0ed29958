// The services of one execution that runs in a thread (run-concurrently.ts): the thread sees plain
// data, and an object with methods (a service, a range, a cache, an HTTP response, a blob) as a
// handle whose methods call back here. This table keeps the real objects by handle, so that an
// object passed back as an argument (a blob to gzip) is the one the service made.

/** What crosses to the thread for an object with methods; `methods` and `data` the first time only. */
export interface Handle {
  readonly $handle: number;
  readonly methods?: readonly string[];
  readonly data?: Readonly<Record<string, unknown>>;
}

const isDate = (value: object): value is Date => Object.prototype.toString.call(value) === '[object Date]';

export class RemoteObjects {
  private readonly objects = new Map<number, object>();
  private readonly ids = new Map<object, number>();
  /** Handles whose methods the thread knows already. */
  private readonly described = new Set<number>();

  /** A value as the thread receives it. */
  encode(value: unknown): unknown {
    if (typeof value === 'function') return undefined;
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((item) => this.encode(item));
    if (isDate(value)) return new Date(value.getTime());
    const entries = Object.entries(value);
    if (!entries.some(([, member]) => typeof member === 'function')) {
      return Object.fromEntries(entries.map(([key, member]) => [key, this.encode(member)]));
    }
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.ids.size + 1;
      this.ids.set(value, id);
      this.objects.set(id, value);
    }
    if (this.described.has(id)) return { $handle: id } satisfies Handle;
    this.described.add(id);
    const methods = entries.filter(([, member]) => typeof member === 'function').map(([key]) => key);
    const data = Object.fromEntries(
      entries
        .filter(([, member]) => typeof member !== 'function')
        .map(([key, member]) => [key, this.encode(member)]),
    );
    return { $handle: id, methods, data } satisfies Handle;
  }

  /** A value the thread sent, with its handles back to the objects they stand for. */
  decode(value: unknown): unknown {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((item) => this.decode(item));
    if (isDate(value)) return value;
    if ('$handle' in value) return this.object((value as Handle).$handle);
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, this.decode(member)]));
  }

  /** Calls `method` of the object behind `handle`, as the script asked. */
  call(handle: number, method: string, args: readonly unknown[]): unknown {
    const target = this.object(handle) as Record<string, unknown>;
    const fn = target[method];
    if (typeof fn !== 'function') throw new Error(`${method} is not a function`);
    return (fn as (...a: unknown[]) => unknown).apply(target, this.decode(args) as unknown[]);
  }

  private object(handle: number): object {
    const found = this.objects.get(handle);
    if (!found) throw new Error(`the test runtime lost object ${handle}`);
    return found;
  }
}
