/** Minimal JSON client used by the example ERP's tests (global fetch). */
export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export function erpClient(baseUrl: () => string) {
  async function request<T = any>(method: string, path: string, body?: unknown, rawBody?: string): Promise<JsonResponse<T>> {
    const payload = rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
    const res = await fetch(`${baseUrl()}${path}`, {
      method,
      headers: payload === undefined ? {} : { 'content-type': 'application/json' },
      body: payload,
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
  }
  return {
    request,
    get: <T = any>(path: string) => request<T>('GET', path),
    post: <T = any>(path: string, body: unknown) => request<T>('POST', path, body),
    postRaw: <T = any>(path: string, raw: string) => request<T>('POST', path, undefined, raw),
    del: <T = any>(path: string) => request<T>('DELETE', path),
  };
}

export function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}
