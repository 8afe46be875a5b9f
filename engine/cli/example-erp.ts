import { randomBytes } from 'node:crypto';

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
  /** The engine's push endpoints the example ERP pushes to (e.g. http://localhost:8080/push); none: it pushes nothing. */
  readonly pushUrl?: string;
}

export async function withExampleErp(enabled: boolean | undefined, env: NodeJS.ProcessEnv, ports: ExamplePorts): Promise<ExampleErp> {
  if (!enabled || (env.ERP_URL && env.PLATFORM_URL)) return { env, close: async () => undefined };
  // Loaded only here: the engine itself never imports the examples, and other commands never load them.
  const secret = env.ERP_PUSH_SECRET || randomBytes(24).toString('base64url');
  const platform = env.PLATFORM_URL ? undefined : await (await import('../../examples/platform')).startPlatform({ port: ports.platform });
  let erp;
  try {
    erp = env.ERP_URL ? undefined : await (await import('../../examples/erp')).startErp({ port: ports.erp, push: ports.pushUrl ? { url: ports.pushUrl, secret } : undefined });
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
