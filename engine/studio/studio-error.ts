/**
 * A request the studio refuses, with the HTTP status and the reason the page shows; `details` go into
 * the answer beside `error` (the load problems, the calls a run would send, the closest recorded case).
 */
export class StudioError extends Error {
  constructor(readonly status: number, message: string, readonly details: Readonly<Record<string, unknown>> = {}) {
    super(message);
  }
}
