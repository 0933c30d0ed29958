#!/usr/bin/env node
// The package's `enrich-sandbox` bin: runs the bundle that scripts/build.mjs writes (turbo builds it
// before tests and packing). A file in the sources, so that installing the workspace can link it
// before anything is built.
await import('../dist/enrich-sandbox.mjs');
