// Replaced by the build (esbuild `define`): the manifest's urlFetchWhitelist, so that Settings can
// refuse a base URL the platform would refuse anyway.
declare const __URL_ALLOWLIST__: readonly string[];
