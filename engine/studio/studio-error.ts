/** A request the studio refuses, with the HTTP status and the reason the page shows. */
export class StudioError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}
