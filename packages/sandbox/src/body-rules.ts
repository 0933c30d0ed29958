// Why a request body is not what the API accepts (a 400), or nothing when it is. The sandbox is the
// API's stand-in: it refuses what the API description refuses, and is strict where a lenient server
// would hide a client's bug (values must already be in the API's form: "(555) 010-2030" is refused,
// as the API says "numeric only"; a field an operation does not take is refused). Core's validation
// checks the fields, their bounds and the requirement rules, so the sandbox agrees with every client
// on them, except for what core adds as a client's own check.
//
// That exception is Email. The API description says of it only "e-mail address, max 100 characters"
// (its field table and its Limits table). Core's checkEmail adds the rules of an address worth paying
// for (a dot-atom of at most 64 bytes before the @, a host name with a top-level domain of letters,
// no quoted names, no IP literal, the domain in lower case...): a client's decision, not the API's,
// and a real service may take what it refuses. So the sandbox checks Email by the API's words alone:
// at most 100 characters, and an address (a mailbox name before the last @, a domain with no spaces
// after it); and core checks the rest of the body with a stand-in address in its place.
import { type InputField, matchField, type Operation, validate } from '@enrich/core';

/** What core is shown in place of an Email the API's rule accepted: an address every check takes. */
const STAND_IN_EMAIL = 'stand-in@example.com';
const SPACE_OR_CONTROL = /[\s\p{Cc}]/u;

/** Why a body is not exactly what the API accepts, or undefined when it is. */
export function bodyProblem(op: Operation, body: Record<string, unknown>): string | undefined {
  for (const [name, value] of Object.entries(body)) {
    if (!op.inputs.some((f) => f.name === name)) {
      const near = matchField(op, name);
      return near
        ? `Unknown parameter ${name}; did you mean ${near.name}? (names are case-sensitive)`
        : `Unknown parameter ${name}; ${op.title} takes ${op.inputs.map((f) => f.name).join(', ')}`;
    }
    if (typeof value !== 'string') return `${name} must be a JSON string`;
  }
  const emails = op.inputs.filter(
    (f) => f.kind === 'email' && body[f.name] !== undefined && body[f.name] !== '',
  );
  const shown: Record<string, unknown> = { ...body };
  for (const field of emails) {
    const problem = emailProblem(field, body[field.name] as string);
    if (problem) return problem;
    shown[field.name] = STAND_IN_EMAIL;
  }
  const checked = validate(op, shown);
  if (!checked.ok) return checked.message;
  for (const [name, value] of Object.entries(shown)) {
    if (value === '') continue;
    if (checked.input[name] !== value) {
      return `${name} is not in the form the API requires; got ${JSON.stringify(value)}, expected ${JSON.stringify(checked.input[name])}`;
    }
  }
  return undefined;
}

/** The API's rule for an e-mail address, and only it: at most 100 characters, and an address. */
export function emailProblem(field: InputField, value: string): string | undefined {
  // Characters as people count them (code points), as the description says "characters".
  const length = [...value].length;
  if (field.maxLength !== undefined && length > field.maxLength) {
    return `${field.name} must be at most ${field.maxLength} characters; got ${length}`;
  }
  const at = value.lastIndexOf('@');
  const domain = value.slice(at + 1);
  if (at <= 0 || domain === '' || SPACE_OR_CONTROL.test(domain)) {
    return `${field.name} must be an e-mail address (a mailbox name, an @ and a domain); got ${JSON.stringify(value)}`;
  }
  return undefined;
}
