import type { Deadline } from './deadline';

/** One request in line for a slot: handed the slot by `grant`, or gone when its deadline passed first. */
interface Waiter {
  readonly grant: () => void;
  gone: boolean;
}

/**
 * An ERP's concurrency limit (system.maxConcurrency): at most `size` requests hold a slot at once, the
 * others wait in line, first come first served, each no longer than its deadline allows. A free slot is
 * taken at once, with no promise, queue entry or timer of its own: p-limit took several promises and
 * turns of the microtask queue per attempt, and the deadline's timer was set and cleared for every one,
 * though almost every attempt finds a slot free.
 */
export class Slots {
  private active = 0;
  private readonly line: Waiter[] = [];
  /** The first waiter of `line` still to be served (a head index: no shift of the array per turn). */
  private head = 0;

  constructor(private readonly size: number) {
    if (!(Number.isInteger(size) || size === Infinity) || size < 1) throw new TypeError(`a concurrency limit must be a whole number from 1 up, not ${size}`);
  }

  /** Slots held now. */
  get activeCount(): number {
    return this.active;
  }

  /** Requests waiting for a slot now. */
  get pendingCount(): number {
    let count = 0;
    for (let index = this.head; index < this.line.length; index++) if (!this.line[index]!.gone) count++;
    return count;
  }

  /**
   * Runs `work` in a slot, and lets the slot go when it settles. A request whose deadline passes in the
   * line (every slot held by slow ERP answers) fails then, with the deadline's failure, and leaves the line.
   */
  async run<T>(deadline: Deadline, label: string, work: () => Promise<T>): Promise<T> {
    if (this.active < this.size && this.head === this.line.length) this.active++;
    else await this.turn(deadline, label);
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  /** Waits in line until a slot is handed over (already counted as held), or the deadline passes. */
  private turn(deadline: Deadline, label: string): Promise<void> {
    const remaining = deadline.remainingMs();
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
        gone: false,
      };
      if (Number.isFinite(remaining)) {
        timer = setTimeout(() => {
          waiter.gone = true;
          reject(deadline.failure(label));
        }, Math.max(0, remaining));
      }
      this.line.push(waiter);
    });
  }

  /** The slot goes to the first waiter still in line, else it is free. */
  private release(): void {
    while (this.head < this.line.length) {
      const next = this.line[this.head]!;
      this.head++;
      if (next.gone) continue;
      this.compact();
      next.grant();
      return;
    }
    this.compact();
    this.active--;
  }

  /** Drops the served part of the line once it is all served, or is most of the array. */
  private compact(): void {
    if (this.head === this.line.length) {
      this.line.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.line.length) {
      this.line.splice(0, this.head);
      this.head = 0;
    }
  }
}
