import http from 'node:http';
import axios, { AxiosError } from 'axios';
import { decodeBody, outgoingHeaders, TransportError, type HttpClient } from '../../engine/http/client';

/**
 * The outbound client a hand-written adapter has: axios (the library this team lists for HTTP) with
 * kept-alive connections, every status accepted, redirects not followed, the body read as the call
 * declares it (the engine's own decoding, so both give byte-identical answers). The engine's client
 * is undici since issue 13: what that saves is part of what the benchmarks measure.
 */
export function createAxiosClient(): HttpClient {
  const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const instance = axios.create({ httpAgent, proxy: false, maxRedirects: 0, responseType: 'arraybuffer', validateStatus: () => true });
  return {
    async send(request) {
      const started = performance.now();
      let response;
      try {
        response = await instance.request<Buffer>({
          method: request.method,
          url: request.url.href,
          headers: outgoingHeaders(request),
          data: request.body === undefined ? undefined : JSON.stringify(request.body),
          timeout: request.timeoutMs,
          maxContentLength: request.maxResponseBytes,
        });
      } catch (error) {
        if (error instanceof AxiosError) throw new TransportError('NETWORK', `${request.method} ${request.url.href}: ${error.code ?? error.message}`);
        throw error;
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers as Record<string, unknown>)) {
        if (value !== undefined && value !== null) headers[name.toLowerCase()] = String(value);
      }
      const decoded = decodeBody(Buffer.from(response.data ?? []), request.responseType, headers['content-type'] ?? '', response.status);
      return { status: response.status, headers, ...decoded, durationMs: performance.now() - started };
    },
    close() {
      httpAgent.destroy();
    },
  };
}
