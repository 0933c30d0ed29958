// How an answer becomes a row of the output: the engine's, shared with the extension.
export { isDocumented, isUnreadable, neutralise, resultOf } from '@enrich/bulk';
