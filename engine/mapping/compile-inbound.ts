import { secretAt, type CompileHelpers } from './compile-connectivity';
import type { InboundDocument } from './format/mapping';
import type { InboundAuthSpec, InboundSpec } from './model';
import type { Secret } from './secret';
import type { PathSegment } from './yaml-source';

type KeysOrUsers = Extract<InboundDocument['auth'], { type: 'apiKey' | 'basic' }>;

/**
 * A caller's API keys or users, every key and password from ${VAR}: the platform's (inbound.auth) and the
 * ERP's toward push endpoints (push.<name>.auth) are declared and checked alike.
 */
export function compileKeysOrUsers(h: CompileHelpers, auth: KeysOrUsers, where: readonly PathSegment[]): Extract<InboundAuthSpec, { type: 'apiKey' | 'basic' }> | undefined {
  switch (auth.type) {
    case 'apiKey': {
      const keys = auth.keys.map((key, index) => secretAt(h, key, [...where, 'keys', index]));
      if (!keys.every((key): key is Secret => key !== undefined)) return undefined;
      return { type: 'apiKey', header: auth.header, keys };
    }
    case 'basic': {
      const users = auth.users.map((user, index) => {
        const password = secretAt(h, user.password, [...where, 'users', index, 'password']);
        return password && { username: user.username, password };
      });
      if (!users.every((user) => user !== undefined)) return undefined;
      return { type: 'basic', users };
    }
  }
}

/** The inbound block: every key and password must come from ${VAR}, like the ERP's credentials. */
export function compileInbound(h: CompileHelpers, raw: InboundDocument): InboundSpec | undefined {
  if (raw.auth.type === 'none') return { auth: { type: 'none' } };
  const auth = compileKeysOrUsers(h, raw.auth, ['inbound', 'auth']);
  return auth && { auth };
}
