/**
 * Long synchronous work (a 200,000-line file, a 50,000-element answer) in slices: the job asks `due()`
 * as it goes and, when a slice's time is up, awaits `turn()`, which lets the event loop run timers and
 * sockets (other requests) before the job continues. Without it one large request is a stall of every
 * other request of the process for as long as it runs. A base module: every folder may use it.
 */

/** How long a slice of work runs before it lets the event loop turn. */
export const SLICE_MS = 10;

/** Lets the event loop turn: setImmediate runs after the I/O callbacks that are due (other requests). */
export function turnEventLoop(): Promise<void> {
  return new Promise((resolve) => {
    setImmediate(resolve);
  });
}

export class TimeSlices {
  /**
   * A new job does not know how long the current turn of the event loop has run already: the stage
   * before it (the contract check before the answer is written, the transform's last slice before the
   * check) may have used a whole slice. So its first check lets the loop turn. Without that, stages
   * that followed each other added their slices up: waits of 24 ms during an export, for a 10 ms slice.
   */
  private since = 0;
  private calls = 0;

  /** `stride`: read the clock only every stride-th call, for loops over cheap elements. */
  constructor(private readonly stride = 1) {}

  /** True when the current slice has used its time. */
  due(): boolean {
    if (this.stride > 1 && ++this.calls % this.stride !== 0) return false;
    return Date.now() - this.since >= SLICE_MS;
  }

  /**
   * Lets the event loop turn (setImmediate runs after pending I/O), then starts a new slice. `pause`: how
   * to turn it (an expression books the wait on its clock: expressions/own-time.ts).
   */
  async turn(pause: () => Promise<void> = turnEventLoop): Promise<void> {
    await pause();
    this.since = Date.now();
  }
}
