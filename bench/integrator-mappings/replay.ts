import { createHttpClient, type HttpClient, type OutboundRequest, type OutboundResponse } from '../../engine/http/client';
import { liveTransport, type Transport, type TwinRequest, type TwinResponse } from './twins/transport';

/**
 * The ERP's answers fetched once and handed back from then on, for the engine (an HttpClient) and for a
 * twin (a Transport): the bench times the adapters' own work, not the ERP's. Each side records its own
 * requests, as it sends them; a request it did not send while recording is an error, never a live call.
 * Recorded answers are frozen, so that an adapter that changed one would fail rather than time less work.
 */
export interface Replay<T> {
  readonly client: T;
  /** From now on every request is answered from the recording. */
  replay(): void;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !ArrayBuffer.isView(value) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

function recorder<Q, A>(keyOf: (request: Q) => string, live: (request: Q) => Promise<A>) {
  const answers = new Map<string, A>();
  let replaying = false;
  return {
    send: async (request: Q): Promise<A> => {
      const key = keyOf(request);
      if (!replaying) {
        const answer = deepFreeze(await live(request));
        answers.set(key, answer);
        return answer;
      }
      const answer = answers.get(key);
      if (answer === undefined) throw new Error(`the bench replays the ERP's answers, and this request was not recorded: ${key.slice(0, 200)}`);
      return answer;
    },
    replay: () => {
      replaying = true;
    },
  };
}

const bodyKey = (body: unknown) => (typeof body === 'string' ? body : JSON.stringify(body) ?? '');

export function engineReplay(): Replay<HttpClient> {
  const http = createHttpClient();
  const { send, replay } = recorder((request: OutboundRequest) => `${request.method} ${request.url.href} ${bodyKey(request.body)} ${JSON.stringify(request.form ?? null)}`, (request: OutboundRequest): Promise<OutboundResponse> => http.send(request));
  return { client: { send, close: () => http.close() }, replay };
}

export function twinReplay(origin: string): Replay<Transport> {
  const live = liveTransport(origin);
  const { send, replay } = recorder((request: TwinRequest) => `${request.method} ${request.path} ${request.body ?? ''}`, (request: TwinRequest): Promise<TwinResponse> => live(request));
  return { client: send, replay };
}
