/**
 * `--example-erp`: the bundled example ERP beside the engine, so the example mapping runs with no
 * set-up. It is started only when ERP_URL is not set, which is how a real ERP is pointed at instead.
 */
export interface ExampleErp {
  readonly env: NodeJS.ProcessEnv;
  /** Set when the example ERP was started here. */
  readonly url?: string;
  close(): Promise<void>;
}

export async function withExampleErp(enabled: boolean | undefined, env: NodeJS.ProcessEnv, port: number): Promise<ExampleErp> {
  if (!enabled || env.ERP_URL) return { env, close: async () => undefined };
  // Loaded only here: the engine itself never imports the examples, and other commands never load them.
  const { startErp } = await import('../../examples/erp');
  const erp = await startErp({ port });
  return { env: { ...env, ERP_URL: erp.url }, url: erp.url, close: () => erp.close() };
}
