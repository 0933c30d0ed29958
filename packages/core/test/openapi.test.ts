// The OpenAPI document: the committed file is what the catalog generates, and its structure
// matches the API description. (redocly lints the file after vitest, in the package's test script.)
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { buildOpenApi, DEFAULT_BASE_URL, DEFAULT_BASE_URL_V3, OPERATIONS } from '../src/index.js';

const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'openapi.json');

type Doc = {
  openapi: string;
  servers: { url: string }[];
  security: Record<string, string[]>[];
  paths: Record<string, { servers?: { url: string }[]; post: Operation }>;
  components: { securitySchemes: Record<string, { type: string; in: string; name: string }> };
};
type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  maxLength?: number;
  pattern?: string;
  allOf?: { anyOf: { required: string[] }[] }[];
  dependentRequired?: Record<string, string[]>;
};
type Operation = {
  operationId: string;
  tags: string[];
  requestBody: { required: boolean; content: { 'application/json': { schema: Schema; example: unknown } } };
  responses: Record<string, { description: string; content?: { 'application/json': { schema: Schema } } }>;
};

const doc = buildOpenApi() as unknown as Doc;

describe('openapi.json', () => {
  it('is current', () => {
    const committed = readFileSync(file, 'utf8');
    expect(committed, 'openapi.json is stale: run pnpm openapi').toBe(
      `${JSON.stringify(buildOpenApi(), null, 2)}\n`,
    );
  });

  it('is OpenAPI 3.1 with the nine paths of the Endpoints table', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/v2/append/auto',
        '/v2/append/demographic',
        '/v3/append/email',
        '/v3/append/phone',
        '/v3/lookup/email',
        '/v3/lookup/phone',
        '/v2/verify/email',
        '/v2/verify/tcpa',
        '/v2/verify/id',
      ].sort(),
    );
    expect(new Set(Object.values(doc.paths).map((p) => p.post.operationId)).size).toBe(9);
  });

  it('serves v2 paths from {base_url} and v3 paths from their own {base_url_v3} servers', () => {
    expect(doc.servers.map((s) => s.url)).toEqual([DEFAULT_BASE_URL]);
    for (const [path, item] of Object.entries(doc.paths)) {
      if (path.startsWith('/v3/'))
        expect(
          item.servers?.map((s) => s.url),
          path,
        ).toEqual([DEFAULT_BASE_URL_V3]);
      else expect(item.servers, path).toBeUndefined();
    }
  });

  it('authenticates with the x-api-key header everywhere', () => {
    expect(doc.components.securitySchemes).toEqual({
      apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
    });
    expect(doc.security).toEqual([{ apiKey: [] }]);
  });

  it('gives every operation the responses of the Errors table', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      expect(Object.keys(item.post.responses), path).toEqual([
        '200',
        '204',
        '400',
        '401',
        '429',
        '440',
        '500',
      ]);
      expect(item.post.responses['204']?.content, path).toBeUndefined();
      expect(item.post.responses['200']?.content?.['application/json'].schema.type, path).toBe('object');
    }
  });

  it("states each operation's inputs with their bounds and rules", () => {
    const body = (path: string) => {
      const post = doc.paths[path]?.post;
      if (!post) throw new Error(`no ${path}`);
      expect(post.requestBody.required).toBe(true);
      return post.requestBody.content['application/json'].schema;
    };
    expect(body('/v3/append/phone').properties?.LName?.maxLength).toBe(15);
    expect(body('/v2/append/demographic').properties?.LName?.maxLength).toBe(20);
    expect(body('/v3/append/phone').properties?.Address1?.maxLength).toBe(60);
    expect(body('/v2/verify/id').properties?.Address1?.maxLength).toBe(64);
    expect(body('/v2/append/demographic').properties?.City?.maxLength).toBe(28);
    expect(body('/v2/append/demographic').properties?.State?.pattern).toBe('^[A-Z]{2}$');
    expect(body('/v2/verify/email').properties?.Email?.maxLength).toBe(100);
    expect(body('/v3/lookup/phone').properties?.Phone?.pattern).toBe('^[0-9]{10}$');
    expect(body('/v2/verify/id').properties?.Zip?.pattern).toBe('^[0-9]{5}$');
    expect(Object.keys(body('/v2/verify/tcpa').properties ?? {})).toEqual(['phone', 'last_name']);
    expect(body('/v2/verify/tcpa').required).toEqual(['phone', 'last_name']);
    expect(body('/v2/append/auto').allOf).toEqual([
      {
        anyOf: [
          { required: ['Phone'] },
          { required: ['Email'] },
          { required: ['FullName', 'Address1', 'Zip'] },
        ],
      },
    ]);
    expect(body('/v2/append/auto').dependentRequired).toEqual({
      FullName: ['Address1', 'Zip'],
      Address1: ['FullName', 'Zip'],
      Zip: ['FullName', 'Address1'],
    });
    expect(body('/v2/verify/id').dependentRequired).toEqual({ Address1: ['Zip'] });
  });

  it("types the output fields: PHV an integer, Phone Lookup's Deliverable a boolean, AptType nullable", () => {
    const out = (path: string) =>
      doc.paths[path]?.post.responses['200']?.content?.['application/json'].schema;
    expect(out('/v3/append/phone')?.properties?.PHV?.type).toEqual(['integer', 'string']);
    const address = out('/v3/lookup/phone')?.properties?.Address?.properties;
    expect(address?.Deliverable?.type).toEqual(['boolean', 'string']);
    expect(address?.AptType?.type).toEqual(['string', 'null']);
    expect(out('/v3/lookup/email')?.properties?.Address?.properties?.Deliverable?.type).toBe('string');
  });

  it("uses each operation's example as a valid request example", () => {
    // Validated against the request schema the document publishes (JSON Schema 2020-12, which
    // OpenAPI 3.1 uses), by a validator of its own: patterns, lengths, formats, the rules.
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    for (const o of OPERATIONS) {
      const body = doc.paths[o.path]?.post.requestBody.content['application/json'];
      expect(body?.example).toEqual(o.example);
      const valid = ajv.compile(body?.schema ?? {});
      expect(valid(body?.example), `${o.id}: ${ajv.errorsText(valid.errors)}`).toBe(true);
      // The schema can say no: an empty request breaks every operation's requirement rule.
      expect(valid({}), `${o.id} accepts an empty request`).toBe(false);
    }
  });
});
