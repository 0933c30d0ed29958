// The words and tables every client shares, each defined once here: row outcomes and their status
// words, formula-like text, field kinds, HTTP statuses, why a run stops, and the permitted use.
export * from './field-kinds.js';
export * from './formula.js';
export * from './permitted-use.js';
export * from './row-outcomes.js';
export * from './status-codes.js';
export * from './stop-reasons.js';
