// Runs on one machine against one service with one key share what the service lets through: when
// one ends, those still going take up the rate it was sending at once (core's Pace.neighbourEnded),
// instead of climbing to it along CUBIC's curve as they would to a limit the service had raised.
// Without it, two runs started together on one token bucket each held about half of it, and the one
// that finished second went on at its half for seconds (issue 36's family f).
//
// Each run keeps one small file in a folder beside the remembered pace (`pace-runs/`), named for the
// service and key (the remembered pace's salted hash: pace-memory.ts) and for the run: "running",
// renewed at every look, then "ended" with the rate it ended at. A run that sees another's "ended"
// shares that rate among the runs still going, itself included. Runs that ended before this one
// started, and runs on other machines (a team on one key), are not heard: each of those finds its
// pace from the service's 429s, as before. Nothing here fails a run: a folder that cannot be read or
// written is a run without neighbours. The files hold no key and no personal data.
import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openRegularFile, removeQuietly } from '../run/file-guard.js';

/** The folder, beside the remembered pace's file, where runs keep their files. */
export const PACE_RUNS_FOLDER = 'pace-runs';
/** How often a run looks at its neighbours (and renews its own file). */
export const NEIGHBOURS_POLL_MS = 250;
/** A "running" file not renewed for this long is a run that is gone (killed, or its machine asleep). */
const STALE_MS = 3000;
/** Files older than this are removed by whichever run looks next. */
const FORGET_MS = 10_000;

interface RunFile {
  readonly state: 'running' | 'ended';
  readonly at: number;
  /** The rate the run ended at, when a 429 had given it one. */
  readonly ratePerSecond?: number;
}

export class PaceNeighbours {
  private readonly run = randomUUID().slice(0, 12);
  /** Ended runs already heard (or ended before this one started): each is shared out once. */
  private readonly heard = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private looked = false;
  private ended = false;

  constructor(
    private readonly folder: string,
    /** The service and key's salted hash: only runs against the same one are neighbours. */
    private readonly group: string,
    private readonly clock: () => number,
    /** Another run ended: this run's share of the rate it was sending, per second. */
    private readonly onEnded: (ratePerSecond: number, now: number) => void,
  ) {}

  /** Starts looking, now and every NEIGHBOURS_POLL_MS, until end(). */
  start(): void {
    this.look();
    this.timer = setInterval(() => this.look(), NEIGHBOURS_POLL_MS);
    this.timer.unref();
  }

  /** This run ended, sending `ratePerSecond` (undefined when no 429 gave it a rate): the others take it up. */
  end(ratePerSecond: number | undefined): void {
    clearInterval(this.timer);
    if (!this.looked || this.ended) return;
    this.ended = true;
    const file: RunFile = {
      state: 'ended',
      at: this.clock(),
      ...(ratePerSecond === undefined ? {} : { ratePerSecond }),
    };
    this.write(file);
  }

  /** Renews this run's file, and shares out what the runs that ended since the last look were sending. */
  look(): void {
    if (this.ended) return;
    const now = this.clock();
    this.write({ state: 'running', at: now });
    const first = !this.looked;
    this.looked = true;
    const others = this.read(now);
    const running = others.filter(([, file]) => file.state === 'running' && now - file.at <= STALE_MS);
    for (const [name, file] of others) {
      if (file.state !== 'ended' || this.heard.has(name)) continue;
      this.heard.add(name);
      // Ended before this run began: what it sent is not this run's to take up.
      if (first || file.ratePerSecond === undefined) continue;
      this.onEnded(file.ratePerSecond / (running.length + 1), now);
    }
  }

  /** The other runs' files of this group, as [name, content]; old ones removed. */
  private read(now: number): [string, RunFile][] {
    let names: string[];
    try {
      names = readdirSync(this.folder);
    } catch {
      return [];
    }
    const files: [string, RunFile][] = [];
    for (const name of names) {
      if (!name.startsWith(`${this.group}.`) || !name.endsWith('.json') || name === this.fileName) continue;
      const file = readRunFile(join(this.folder, name));
      if (file === undefined) continue;
      if (now - file.at > FORGET_MS) removeQuietly(join(this.folder, name));
      else files.push([name, file]);
    }
    return files;
  }

  private get fileName(): string {
    return `${this.group}.${this.run}.json`;
  }

  /** Written whole under a private name and renamed, so that a reader never sees half of it. */
  private write(file: RunFile): void {
    const path = join(this.folder, this.fileName);
    const temp = `${path}.tmp`;
    try {
      mkdirSync(this.folder, { recursive: true, mode: 0o700 });
      writeFileSync(temp, JSON.stringify(file), { mode: 0o600 });
      renameSync(temp, path);
    } catch {
      // No neighbour hears this run: each finds its pace alone, as without this file.
      removeQuietly(temp);
    }
  }
}

/** A run's file, or undefined when it is not one (half written, someone else's, gone). */
function readRunFile(path: string): RunFile | undefined {
  try {
    // Never blocks on a FIFO put there in its place, nor reads anything but a file.
    const fd = openRegularFile(path);
    let text: string;
    try {
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return undefined;
    const { state, at, ratePerSecond } = value as Record<string, unknown>;
    if ((state !== 'running' && state !== 'ended') || typeof at !== 'number' || !Number.isFinite(at))
      return undefined;
    if (ratePerSecond !== undefined && !(typeof ratePerSecond === 'number' && ratePerSecond > 0))
      return undefined;
    return { state, at, ...(ratePerSecond === undefined ? {} : { ratePerSecond }) };
  } catch {
    return undefined;
  }
}
