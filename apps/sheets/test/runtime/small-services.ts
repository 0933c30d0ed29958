// The fakes of Utilities, HtmlService, Session, Logger and console (services.ts holds the limits
// the fakes share).
import { createHash, createHmac } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Execution } from './execution.js';
import { LIMITS } from './services.js';

// ---------------------------------------------------------------------------------------------
// Utilities, HtmlService, Session, Logger, console, ScriptApp

export function createUtilities(exec: Execution, random: () => number) {
  const realm = exec.realm;
  const bytesOf = (value: unknown, charset?: string): Buffer => {
    if (typeof value === 'string') return Buffer.from(value, charset === 'US_ASCII' ? 'latin1' : 'utf8');
    if (Array.isArray(value)) return Buffer.from(value.map((b) => (Number(b) + 256) % 256));
    throw realm.error('Invalid argument: value');
  };
  const signed = (buffer: Buffer) => realm.importValue([...buffer].map((b) => (b > 127 ? b - 256 : b)));
  const algorithms: Record<string, string> = {
    MD5: 'md5',
    SHA_1: 'sha1',
    SHA_256: 'sha256',
    SHA_384: 'sha384',
    SHA_512: 'sha512',
  };
  // Blobs: only what the add-on uses (text in and out, gzip). Bytes are signed, as Apps Script's are.
  const BYTES = Symbol('bytes');
  const blob = (bytes: Buffer, contentType: string | null = null) => ({
    [BYTES]: bytes,
    getBytes: () => signed(bytes),
    getDataAsString: () => bytes.toString('utf8'),
    getContentType: () => contentType,
  });
  const bytesOfBlob = (value: unknown): Buffer => {
    const bytes = (value as { [BYTES]?: Buffer } | null)?.[BYTES];
    if (!bytes) throw realm.error('Invalid argument: blob');
    return bytes;
  };
  return {
    newBlob: (data: unknown, contentType?: string) => blob(bytesOf(data), contentType ?? null),
    gzip: (value: unknown) => blob(gzipSync(bytesOfBlob(value)), 'application/x-gzip'),
    ungzip: (value: unknown) => {
      try {
        return blob(gunzipSync(bytesOfBlob(value)));
      } catch {
        throw realm.error('Invalid argument: blob is not gzip data');
      }
    },
    DigestAlgorithm: Object.fromEntries(Object.keys(algorithms).map((k) => [k, k])),
    Charset: { US_ASCII: 'US_ASCII', UTF_8: 'UTF_8' },
    sleep: (ms: number) => {
      if (!(Number(ms) >= 0) || Number(ms) > LIMITS.sleepMaxMs) {
        throw realm.error(`Invalid argument: milliseconds must be 0 to 300000; got ${String(ms)}`);
      }
      exec.enter(Number(ms));
    },
    computeDigest: (algorithm: string, value: unknown, charset?: string) => {
      const name = algorithms[algorithm];
      if (!name) throw realm.error(`Invalid argument: algorithm ${String(algorithm)}`);
      return signed(createHash(name).update(bytesOf(value, charset)).digest());
    },
    // computeHmacSha256Signature(value, key[, charset]): strings (in the charset, UTF-8 by default) or
    // byte arrays; signed bytes back.
    computeHmacSha256Signature: (value: unknown, key: unknown, charset?: string) =>
      signed(createHmac('sha256', bytesOf(key, charset)).update(bytesOf(value, charset)).digest()),
    base64Encode: (value: unknown, charset?: string) => bytesOf(value, charset).toString('base64'),
    base64EncodeWebSafe: (value: unknown, charset?: string) =>
      bytesOf(value, charset).toString('base64').replace(/\+/g, '-').replace(/\//g, '_'),
    base64Decode: (text: string) => signed(Buffer.from(String(text), 'base64')),
    getUuid: () => {
      const bytes = Buffer.from(Array.from({ length: 16 }, () => Math.floor(random() * 256)));
      const hex = bytes.toString('hex');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
    },
  };
}

export interface HtmlHost {
  readFile(name: string): string;
}

const HTML_OUTPUT = Symbol('HtmlOutput');

export function createHtmlService(exec: Execution, host: HtmlHost) {
  const output = (initial: string) => {
    let content = initial;
    let title = '';
    const self = {
      [HTML_OUTPUT]: true,
      getContent: () => content,
      setContent: (html: string) => {
        content = String(html);
        return self;
      },
      append: (html: string) => {
        content += String(html);
        return self;
      },
      getTitle: () => title,
      setTitle: (t: string) => {
        title = String(t);
        return self;
      },
      setWidth: () => self,
      setHeight: () => self,
      setSandboxMode: () => self,
      setXFrameOptionsMode: () => self,
      addMetaTag: () => self,
    };
    return self;
  };
  return {
    SandboxMode: { IFRAME: 'IFRAME', NATIVE: 'NATIVE', EMULATED: 'EMULATED' },
    XFrameOptionsMode: { ALLOWALL: 'ALLOWALL', DEFAULT: 'DEFAULT' },
    createHtmlOutput: (html?: string) => output(html === undefined ? '' : String(html)),
    createHtmlOutputFromFile: (name: string) => {
      exec.enter(10);
      return output(host.readFile(name));
    },
    createTemplateFromFile: () => {
      throw exec.realm.error(
        'HtmlService templates are not modelled by this test runtime; the add-on does not use them',
      );
    },
  };
}

export function htmlOf(value: unknown): { title: string; html: string } {
  const output = value as { [HTML_OUTPUT]?: boolean; getContent?: () => string; getTitle?: () => string };
  if (!output?.[HTML_OUTPUT] || !output.getContent) throw new Error('showSidebar takes an HtmlOutput');
  return { title: output.getTitle?.() ?? '', html: output.getContent() };
}

export function createSession(exec: Execution, temporaryKey: string) {
  const allow = (what: string) => exec.allow(`Session.${what}`, {});
  return {
    // A consumer account's e-mail is hidden from add-ons it did not authorise with that scope.
    getActiveUser: () => {
      allow('getActiveUser');
      return { getEmail: () => '' };
    },
    getEffectiveUser: () => {
      allow('getEffectiveUser');
      return { getEmail: () => '' };
    },
    getTemporaryActiveUserKey: () => {
      allow('getTemporaryActiveUserKey');
      return temporaryKey;
    },
    getScriptTimeZone: () => 'Etc/UTC',
  };
}

export function createLogger(log: string[]) {
  const format = (args: unknown[]) =>
    args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
  return {
    Logger: {
      log: (...args: unknown[]) => {
        log.push(format(args));
      },
    },
    console: Object.fromEntries(
      ['log', 'info', 'warn', 'error', 'debug'].map((level) => [
        level,
        (...args: unknown[]) => {
          log.push(`${level}: ${format(args)}`);
        },
      ]),
    ),
  };
}
