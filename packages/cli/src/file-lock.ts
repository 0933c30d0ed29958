// The engine's file locks (one writer per cache and per output), for the CLI's tests.
export { acquireLock, isRunning, startTimeOf } from '@enrich/bulk';
