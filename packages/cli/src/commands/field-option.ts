// An operation's input field as a commander option: `--Phone`, matched in any case and with `-`,
// `_` or nothing between words, and by the header spellings the catalog lists (`--first-name` for
// FName, `--zip-code` for Zip). The catalog is the only list of those spellings.
import { type InputField, squash } from '@enrich/core';
import { Option } from 'commander';

/** The flag for a field: the API's spelling, with `_` as `-` (`--Phone`, `--LName`, `--last-name`). */
export function flagOf(field: InputField): string {
  return field.name.replace(/_/g, '-');
}

export class FieldOption extends Option {
  readonly field: InputField;
  private readonly spellings: ReadonlySet<string>;

  constructor(field: InputField) {
    const bound = field.maxLength === undefined ? '' : `, at most ${field.maxLength} characters`;
    super(`--${flagOf(field)} <value>`, `${field.label}${bound}`);
    this.field = field;
    this.spellings = new Set([field.name, ...field.aliases].map(squash));
  }

  // Commander finds the option for a flag by asking each option `is(flag)` (`--PHONE=2` is asked
  // as `--PHONE`). Widening that question is how every spelling reaches this one option, with
  // commander doing all the parsing; the value is stored under this option's own name.
  override is(arg: string): boolean {
    return arg.startsWith('--') && this.spellings.has(squash(arg.slice(2)));
  }
}

declare module 'commander' {
  interface Option {
    /** Whether `arg` is this option's flag (commander's own, not in its published types). */
    is(arg: string): boolean;
  }
}
