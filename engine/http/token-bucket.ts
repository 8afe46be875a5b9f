import type { Deadline } from './deadline';

/**
 * system.rateLimit: a token bucket per ERP connection, shared by every request to that system. A request
 * waits in line (first come, first served) until its cost fits, then takes it; nobody overtakes a waiting
 * request, so a large query is not starved by small ones. The system's own word on its level (observe)
 * replaces the count, less what requests still under way took: they are not yet charged over there.
 */
interface Waiter {
  readonly cost: number;
  readonly start: () => void;
}

export class TokenBucket {
  private level: number;
  private updatedAt: number;
  private readonly line: Waiter[] = [];
  private timer?: NodeJS.Timeout;
  /** Points taken by requests whose answer has not come yet. */
  private underWay = 0;

  constructor(readonly capacity: number, readonly refillPerSecond: number, private readonly now: () => number = () => performance.now()) {
    this.level = capacity;
    this.updatedAt = now();
  }

  /** Points in the bucket now, for tests and diagnostics. */
  get available(): number {
    this.refill();
    return this.level;
  }

  private refill(): void {
    const now = this.now();
    this.level = Math.min(this.capacity, this.level + ((now - this.updatedAt) / 1000) * this.refillPerSecond);
    this.updatedAt = now;
  }

  /** How long until `cost` more points than the line ahead needs are in the bucket. */
  private waitFor(cost: number): number {
    const ahead = this.line.reduce((sum, waiter) => sum + waiter.cost, 0);
    return Math.max(0, ((ahead + cost - this.level) / this.refillPerSecond) * 1000);
  }

  /**
   * Waits until `cost` points fit and takes them; the returned function gives them back as spent once the
   * answer came (`settle`). Fails at once, with the deadline's failure, when the wait would pass it.
   */
  async take(cost: number, deadline: Deadline, label: string): Promise<() => void> {
    const points = Math.min(Math.max(0, cost), this.capacity);
    this.refill();
    const wait = this.waitFor(points);
    if (wait >= deadline.remainingMs()) {
      throw deadline.failure(label, `system.rateLimit: ${Math.ceil(points)} points were needed, ${Math.floor(this.level)} were left, and at ${this.refillPerSecond} per second the wait of ${Math.ceil(wait)} ms would pass it`);
    }
    if (wait > 0 || this.line.length > 0) await this.inLine(points, deadline, label);
    else this.level -= points;
    this.underWay += points;
    let settled = false;
    return () => {
      if (settled) return;
      settled = true;
      this.underWay -= points;
    };
  }

  /** The level the system reported in an answer: what it has, less what is under way toward it. */
  observe(reported: number): void {
    if (!Number.isFinite(reported)) return;
    this.refill();
    this.level = Math.max(0, Math.min(this.capacity, reported - this.underWay));
    this.serve();
  }

  /** Waits for its turn; a system that reports less than counted can make the wait longer: the deadline still ends it. */
  private inLine(cost: number, deadline: Deadline, label: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const remaining = deadline.remainingMs();
      let timer: NodeJS.Timeout | undefined;
      const waiter: Waiter = {
        cost,
        start: () => {
          if (timer) clearTimeout(timer);
          resolve();
        },
      };
      if (Number.isFinite(remaining)) {
        timer = setTimeout(() => {
          const at = this.line.indexOf(waiter);
          if (at >= 0) this.line.splice(at, 1);
          reject(deadline.failure(label, `waiting for ${Math.ceil(cost)} points of system.rateLimit`));
          this.serve();
        }, Math.max(0, remaining));
      }
      this.line.push(waiter);
      this.serve();
    });
  }

  /** Starts the waiters whose points are there, in order, and sets a timer for the next one. */
  private serve(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.refill();
    while (this.line.length > 0 && this.level >= this.line[0]!.cost) {
      const next = this.line.shift()!;
      this.level -= next.cost;
      next.start();
    }
    if (this.line.length > 0) this.timer = setTimeout(() => this.serve(), Math.ceil(((this.line[0]!.cost - this.level) / this.refillPerSecond) * 1000));
  }
}
