// The bundle's exports become the global `EnrichSheets`; the build writes a top-level function for
// each (Apps Script only calls top-level function declarations) and one per custom function, each
// calling `EnrichSheets.customFunction(NAME, arguments)`.
export { discardRun, planRun, runChunk, startRun } from './bulk.js';
export { customFunction } from './custom.js';
export {
  freezeResults,
  onInstall,
  onOpen,
  showHelp,
  showSetKey,
  showSettings,
  showSidebar,
} from './menu.js';
export { describeSelection, getSidebarState, saveSettings } from './sidebar-api.js';
