import { createMasker, type Masker } from './mask';
import { Secret } from './secret';

/**
 * Every secret value one engine knows, for masking what it keeps and shows (the request journal, the
 * outbox's last answers, the log): those of the mappings it serves and has served (entries kept before a
 * reload may hold them) and those it obtained while running (the OAuth2 access tokens it fetched). An ERP
 * that echoes its request in an error answer hands them back; they are masked in all their forms (see
 * secretForms), in every mapping's records: a secret of one customer is never worth showing in another's.
 */
export interface SecretRegistry extends Masker {
  /** The secrets of the mappings served from now on; those of mappings served before stay known. */
  serve(mappings: readonly { readonly secretValues: readonly Secret[] }[]): void;
  /** A credential obtained while running (a fetched OAuth2 token), masked from now on. */
  learn(value: string): void;
}

/** Tokens remembered: renewed about hourly, so this covers days of entries in the journal and the outbox. */
const LEARNED_KEPT = 256;

export function createSecretRegistry(): SecretRegistry {
  const served = new Set<string>();
  const learned: string[] = [];
  let masker: Masker = createMasker([]);
  const rebuild = () => {
    masker = createMasker([...served, ...learned].map((value) => new Secret(value)));
  };
  return {
    serve(mappings) {
      const before = served.size;
      for (const mapping of mappings) for (const secret of mapping.secretValues) served.add(secret.reveal());
      if (served.size !== before) rebuild();
    },
    learn(value) {
      if (learned.includes(value)) return;
      learned.push(value);
      if (learned.length > LEARNED_KEPT) learned.shift();
      rebuild();
    },
    text: (value) => masker.text(value),
    json: (value) => masker.json(value),
    headers: (headers) => masker.headers(headers),
    url: (url) => masker.url(url),
    deep: (value) => masker.deep(value),
  };
}
