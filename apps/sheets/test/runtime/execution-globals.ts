// The globals Apps Script gives an execution: its services, bound to it and to the runtime's stores.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { createRealm, Execution, Mode } from './execution.js';
import type { Runtime } from './index.js';
import { createLockService } from './lock-service.js';
import { createCacheService, createPropertiesService } from './services.js';
import { createHtmlService, createLogger, createSession, createUtilities, htmlOf } from './small-services.js';
import { createSpreadsheetApp } from './spreadsheet-app.js';
import { createScriptApp } from './triggers.js';
import type { User } from './types.js';
import { createUrlFetchApp } from './url-fetch.js';
import { mapGet } from './vm-helpers.js';

/** The globals Apps Script gives an execution: its services, bound to it. */
export function executionGlobals(
  rt: Runtime,
  exec: Execution,
  realm: ReturnType<typeof createRealm>,
  user: User,
  mode: Mode,
) {
  // In a custom function, getUserProperties() is the spreadsheet owner's store, whoever edits the cell.
  const propertiesUser = mode === 'custom' ? rt.owner : user;
  const { Logger, console } = createLogger(rt.logs);
  return {
    SpreadsheetApp: createSpreadsheetApp(exec, {
      model: rt.spreadsheet,
      ui: rt.ui,
      globalFunctions: () => rt.globalNames,
      htmlContent: htmlOf,
      limitedMayWrite: () => rt.limitedMayWrite,
      takeFault: (method) => {
        const fault = rt.faults.get(method);
        rt.faults.delete(method);
        return fault;
      },
    }),
    PropertiesService: createPropertiesService(exec, {
      userStore: () => rt.userProperties(propertiesUser),
      documentStore: () => rt.documentProperties,
      scriptStore: () => rt.scriptProperties,
      opsCounter: () => mapGet(rt.propertyCounters, propertiesUser.email, () => ({ day: -1, count: 0 })),
    }),
    CacheService: createCacheService(exec, {
      userCache: () => rt.userCache(propertiesUser),
      documentCache: () => rt.documentCache,
      scriptCache: () => rt.scriptCache,
    }),
    LockService: createLockService(exec, rt.locks, () => rt.locksRefused),
    UrlFetchApp: createUrlFetchApp(exec, {
      sandbox: rt.sandbox,
      allowList: rt.allowList,
      extraLatencyMs: rt.extraLatencyMs,
      log: rt.http,
      counter: () => mapGet(rt.fetchCounters, user.email, () => ({ day: -1, count: 0 })),
    }),
    Utilities: createUtilities(exec, rt.random),
    HtmlService: createHtmlService(exec, {
      readFile: (name) => {
        const file = `${name.replace(/\.html$/, '')}.html`;
        try {
          return readFileSync(join(rt.distDir, file), 'utf8');
        } catch {
          throw realm.error(`No HTML file named ${name} was found.`);
        }
      },
    }),
    Session: createSession(exec, `tmp-${user.email.length}-${user.email.charCodeAt(0)}`),
    ScriptApp: createScriptApp(exec, {
      store: rt.triggers,
      documentId: rt.spreadsheet.id,
      scopes: rt.scopes,
      globalFunctions: () => rt.globalNames,
    }),
    Logger,
    console,
  };
}
