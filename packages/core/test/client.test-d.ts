// Type tests of the SDK (vitest --typecheck, run by `pnpm test`): the method names, inputs and
// records derived from the catalog. Written out by hand, so that they check the derivation.
import { describe, expectTypeOf, it } from 'vitest';
import {
  type AnswerCache,
  type CallResult,
  createClient,
  createMemoryCache,
  type OperationInput,
  type OperationRecord,
  type Outcome,
} from '../src/sdk.js';

const client = createClient({ apiKey: 'k' });

describe('createClient', () => {
  it('has one method per operation, named from its title', () => {
    expectTypeOf(client).toHaveProperty('autoAppend');
    expectTypeOf(client).toHaveProperty('demographicAppend');
    expectTypeOf(client).toHaveProperty('emailAppend');
    expectTypeOf(client).toHaveProperty('phoneAppend');
    expectTypeOf(client).toHaveProperty('emailLookup');
    expectTypeOf(client).toHaveProperty('phoneLookup');
    expectTypeOf(client).toHaveProperty('emailVerify');
    expectTypeOf(client).toHaveProperty('tcpaVerify');
    expectTypeOf(client).toHaveProperty('idVerify');
    expectTypeOf<keyof typeof client>().toEqualTypeOf<
      | 'autoAppend'
      | 'demographicAppend'
      | 'emailAppend'
      | 'phoneAppend'
      | 'emailLookup'
      | 'phoneLookup'
      | 'emailVerify'
      | 'tcpaVerify'
      | 'idVerify'
    >();
  });

  it('takes exactly the operation’s fields, as optional strings', () => {
    expectTypeOf<OperationInput<'phone-lookup'>>().toEqualTypeOf<{ readonly Phone?: string }>();
    expectTypeOf<OperationInput<'tcpa-verify'>>().toEqualTypeOf<{
      readonly phone?: string;
      readonly last_name?: string;
    }>();
    expectTypeOf<OperationInput<'auto-append'>>().toEqualTypeOf<{
      readonly Phone?: string;
      readonly Email?: string;
      readonly FullName?: string;
      readonly Address1?: string;
      readonly Zip?: string;
    }>();
    expectTypeOf(client.phoneLookup).parameter(0).toEqualTypeOf<OperationInput<'phone-lookup'>>();
    void (async () => {
      await client.phoneLookup({ Phone: '5550102030' });
      await client.tcpaVerify({ phone: '5550102030', last_name: 'Doe' });
      // @ts-expect-error a field the operation does not have
      await client.phoneLookup({ Fone: '5550102030' });
      // @ts-expect-error a number, not a string
      await client.phoneLookup({ Phone: 5550102030 });
      // @ts-expect-error another operation's field
      await client.phoneLookup({ Email: 'jane@example.com' });
      // @ts-expect-error TCPA Verify spells its phone in lowercase
      await client.tcpaVerify({ Phone: '5550102030' });
    });
  });

  it('resolves to a record typed from the catalog, no match, or an error', () => {
    expectTypeOf(client.phoneLookup).returns.resolves.toEqualTypeOf<
      CallResult<OperationRecord<'phone-lookup'>>
    >();
    type PhoneLookup = OperationRecord<'phone-lookup'>;
    expectTypeOf<PhoneLookup['Name']['FName']>().toEqualTypeOf<string>();
    expectTypeOf<PhoneLookup['Address']['Deliverable']>().toEqualTypeOf<boolean | null>();
    // "AptType (may be null)"
    expectTypeOf<PhoneLookup['Address']['AptType']>().toEqualTypeOf<string | null>();
    expectTypeOf<PhoneLookup['trace']>().toEqualTypeOf<string>();
    expectTypeOf<OperationRecord<'email-lookup'>['Address']['Deliverable']>().toEqualTypeOf<string>();
    expectTypeOf<OperationRecord<'phone-append'>['PHV']>().toEqualTypeOf<number | null>();
    expectTypeOf<OperationRecord<'auto-append'>['Name']['Suffix']>().toEqualTypeOf<string>();
    expectTypeOf<OperationRecord<'auto-append'>['Vehicle3']['Make']>().toEqualTypeOf<string>();
    expectTypeOf<OperationRecord<'id-verify'>['IDScores']['NameToEmail']>().toEqualTypeOf<string>();
    expectTypeOf<OperationRecord<'demographic-append'>['Demographics']['EHI']>().toEqualTypeOf<string>();
    expectTypeOf<keyof OperationRecord<'email-verify'>>().toEqualTypeOf<'Email' | 'Result'>();
    // Email Lookup's Name has no Suffix; only Auto Append's does.
    expectTypeOf<OperationRecord<'email-lookup'>['Name']>().not.toHaveProperty('Suffix');

    void (async () => {
      const result = await client.phoneLookup({ Phone: '5550102030' });
      if (result.kind === 'record') expectTypeOf(result.record.Name.FName).toEqualTypeOf<string>();
      else if (result.kind === 'error') expectTypeOf(result.error.code).toBeString();
      else expectTypeOf(result).toEqualTypeOf<{ readonly kind: 'no-match' } & { readonly cached?: true }>();
      expectTypeOf(result.cached).toEqualTypeOf<true | undefined>();
    });
  });

  it('takes its options typed', () => {
    // Every option may be left out: the key and the bases then come from the environment.
    createClient();
    createClient({});
    createClient({
      apiKey: 'k',
      baseUrl: 'http://127.0.0.1:8787',
      baseUrlV3: 'http://127.0.0.1:8787',
      timeoutMs: 5000,
      retry: { maxAttempts: 2 },
      cache: false,
    });
    createClient({ cache: createMemoryCache({ maxAnswers: 100 }) });
    createClient({ cache: new Map<string, Outcome>() satisfies AnswerCache });
    // @ts-expect-error a key is text
    createClient({ apiKey: 42 });
    // @ts-expect-error the cache is a store with get and put, or false
    createClient({ cache: true });
    expectTypeOf(client.idVerify)
      .parameter(1)
      .toEqualTypeOf<{ readonly signal?: AbortSignal | undefined } | undefined>();
  });
});
