// `enrich forget --in people.csv` (and held): a file of people to forget, one per row, read as every
// file of the engine is (CSV in any encoding and separator, a workbook, JSON Lines). The columns
// that name a person's field (core's forgetField: Phone, Email, FullName, FName, LName, Address1,
// Zip, City, State, in any spelling) are read; other columns (an id, a note) are passed over.
// A row that does not name a person (a phone of 9 digits, a name without its street line) stops
// the whole request before anything is done, naming its row: a request to forget must not be done
// in part because of a typo.
import { forgetField, type Identity, identitiesOf } from '@enrich/core';
import { openSource } from '../formats/open-source.js';
import { BulkError } from '../run/bulk-error.js';

export interface PeopleRead {
  readonly identities: readonly Identity[];
  /** Rows read with a person in them (blank rows are skipped). */
  readonly rows: number;
}

export async function readPeople(path: string): Promise<PeopleRead> {
  const source = await openSource(path);
  try {
    const columns = source.header.flatMap((name, index) => (forgetField(name) ? [{ name, index }] : []));
    if (columns.length === 0) {
      throw new BulkError(
        `${path}: no column names a person's field (Phone, Email, FullName, FName, LName, Address1); columns: ${source.header.join(', ')}. Nothing was done.`,
      );
    }
    const identities: Identity[] = [];
    const seen = new Set<string>();
    let rows = 0;
    for (let batch = await source.nextBatch(); batch; batch = await source.nextBatch()) {
      batch.records.forEach((record, i) => {
        const fields = Object.fromEntries(columns.map(({ name, index }) => [name, record[index] ?? '']));
        if (Object.values(fields).every((v) => v.trim() === '')) return;
        const read = identitiesOf(fields);
        if (!read.ok) {
          throw new BulkError(`${path}, row ${batch.firstRow + i}: ${read.message}. Nothing was done.`);
        }
        rows++;
        for (const identity of read.identities) {
          const id = `${identity.kind}:${identity.value}`;
          if (!seen.has(id) && seen.add(id)) identities.push(identity);
        }
      });
    }
    return { identities, rows };
  } finally {
    source.close();
  }
}
