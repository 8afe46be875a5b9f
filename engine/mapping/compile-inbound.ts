import { secretAt, type CompileHelpers } from './compile-connectivity';
import type { InboundDocument } from './format/mapping';
import type { InboundSpec } from './model';
import type { Secret } from './secret';

/** The inbound block: every key and password must come from ${VAR}, like the ERP's credentials. */
export function compileInbound(h: CompileHelpers, raw: InboundDocument): InboundSpec | undefined {
  const where = ['inbound', 'auth'];
  const { auth } = raw;
  switch (auth.type) {
    case 'none':
      return { auth: { type: 'none' } };
    case 'apiKey': {
      const keys = auth.keys.map((key, index) => secretAt(h, key, [...where, 'keys', index]));
      if (!keys.every((key): key is Secret => key !== undefined)) return undefined;
      return { auth: { type: 'apiKey', header: auth.header, keys } };
    }
    case 'basic': {
      const users = auth.users.map((user, index) => {
        const password = secretAt(h, user.password, [...where, 'users', index, 'password']);
        return password && { username: user.username, password };
      });
      if (!users.every((user) => user !== undefined)) return undefined;
      return { auth: { type: 'basic', users } };
    }
  }
}
