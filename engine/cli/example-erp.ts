import { randomBytes } from 'node:crypto';
import { usageError } from './usage';

/**
 * `--example-erp`: the bundled example ERP beside the engine, so the example mapping runs with no
 * set-up, with the stand-in of the platform's integration interface that the example's pushes are
 * delivered to. Each is started only when its variable is not set (ERP_URL, PLATFORM_URL), which is
 * how a real ERP or platform is pointed at instead; the ERP's push signing secret (ERP_PUSH_SECRET) is
 * made up for the run unless it is set.
 */
export interface ExampleErp {
  readonly env: NodeJS.ProcessEnv;
  /** Set when the example ERP was started here. */
  readonly url?: string;
  /** Set when the platform stand-in was started here. */
  readonly platformUrl?: string;
  close(): Promise<void>;
}

export interface ExamplePorts {
  readonly erp: number;
  readonly platform: number;
  /**
   * Where the example ERP sends a push of this name (e.g. http://localhost:8080/push/NewOrder), asked at
   * each push: the engine knows its mappings and its port only after the ERP has started. None: it pushes nothing.
   */
  readonly pushTo?: (push: string) => string | undefined;
}

export async function withExampleErp(enabled: boolean | undefined, env: NodeJS.ProcessEnv, ports: ExamplePorts): Promise<ExampleErp> {
  if (!enabled || (env.ERP_URL && env.PLATFORM_URL)) return { env, close: async () => undefined };
  // Loaded only here: the engine itself never imports the examples, and other commands never load them.
  const secret = env.ERP_PUSH_SECRET || randomBytes(24).toString('base64url');
  const platform = env.PLATFORM_URL ? undefined : await listening('the platform stand-in', 'PLATFORM_PORT', 'PLATFORM_URL', ports.platform, async () => (await import('../../examples/platform')).startPlatform({ port: ports.platform }));
  let erp;
  try {
    erp = env.ERP_URL ? undefined : await listening('the example ERP', 'ERP_PORT', 'ERP_URL', ports.erp, async () => (await import('../../examples/erp')).startErp({ port: ports.erp, push: ports.pushTo ? { url: ports.pushTo, secret } : undefined }));
  } catch (error) {
    await platform?.close();
    throw error;
  }
  return {
    env: { ...env, ERP_URL: erp?.url ?? env.ERP_URL, PLATFORM_URL: platform?.url ?? env.PLATFORM_URL, ERP_PUSH_SECRET: secret },
    url: erp?.url,
    platformUrl: platform?.url,
    close: async () => {
      await Promise.all([erp?.close(), platform?.close()]);
    },
  };
}

/**
 * A stand-in started, or a usage error that says which variable moves it: a port already taken (a
 * second `npm start`, another program on 8081) is the operator's to fix, not a bug of the engine.
 */
async function listening<T>(what: string, portVariable: string, urlVariable: string, port: number, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') {
      const why = code === 'EADDRINUSE' ? 'it is already in use' : 'this user may not listen on it';
      usageError(`${what} cannot listen on port ${port}: ${why}. Set ${portVariable} to a free port (0 picks one), or ${urlVariable} to one already running`);
    }
    throw error;
  }
}
