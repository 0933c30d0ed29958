// What google.script.run lets through between the sidebar and the server: primitives, null, plain
// objects and arrays of those. A Date or a function as an argument fails the call; undefined in an
// array becomes null and an undefined property is dropped. A result holding a Date (or a function)
// makes neither handler fire (community-observed): here that fails the test loudly instead of hanging.

export class IllegalArgument extends Error {}
export class UndeliverableResult extends Error {}

/** The argument as the server receives it, or IllegalArgument. */
export function passArgument(value: unknown, path = '0'): unknown {
  return transfer(value, path, (p) => new IllegalArgument(`Failed due to illegal value in property: ${p}`));
}

/** The result as the browser receives it, or UndeliverableResult. */
export function passResult(value: unknown): unknown {
  return transfer(
    value,
    'result',
    (p) =>
      new UndeliverableResult(
        `the server returned a value google.script.run cannot carry (at ${p}): neither handler would fire`,
      ),
  );
}

function transfer(value: unknown, path: string, illegal: (path: string) => Error): unknown {
  if (value === undefined || value === null) return value === undefined ? null : null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint')
    throw illegal(path);
  if (Object.prototype.toString.call(value) === '[object Date]') throw illegal(path);
  if (Array.isArray(value))
    return value.map((v, i) => (v === undefined ? null : transfer(v, `${path}.${i}`, illegal)));
  const proto = Object.getPrototypeOf(value);
  if (proto !== null && Object.getPrototypeOf(proto) !== null) throw illegal(path);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === undefined) continue;
    out[k] = transfer(v, `${path}.${k}`, illegal);
  }
  return out;
}
