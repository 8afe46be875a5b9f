/**
 * A system's login answer (system.session), kept per connection and shared by every request to it: one
 * login at a time (requests that need the session meanwhile wait for that same login), again after
 * `ttlMs`, and again when a call's answer says the session ended (`renew`). What a login is, and what
 * its answer keeps, is the pipeline's business: this holds only the value and when it was got.
 */
export class SessionSlot {
  private value: { readonly session: unknown; readonly at: number } | undefined;
  private pending: Promise<unknown> | undefined;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** The kept session, or the one `login` gets when there is none or it is older than `ttlMs`. */
  current(login: () => Promise<unknown>, ttlMs: number | undefined): Promise<unknown> {
    if (this.value && (ttlMs === undefined || this.now() - this.value.at < ttlMs)) return Promise.resolve(this.value.session);
    return this.start(login);
  }

  /**
   * The session `used` has ended: a new login, unless another request already replaced that one (then
   * its newer session is the answer). A failed login keeps nothing, so the next request tries again.
   */
  renew(used: unknown, login: () => Promise<unknown>): Promise<unknown> {
    if (this.value && this.value.session !== used) return Promise.resolve(this.value.session);
    this.value = undefined;
    return this.start(login);
  }

  private start(login: () => Promise<unknown>): Promise<unknown> {
    this.pending ??= login().then(
      (session) => {
        this.value = { session, at: this.now() };
        this.pending = undefined;
        return session;
      },
      (error: unknown) => {
        this.pending = undefined;
        throw error;
      },
    );
    return this.pending;
  }
}
