/**
 * What mappings/example.yaml reads besides ERP_URL: where its pushes are delivered (the platform's
 * integration interface) and the secret the ERP signs them with. Tests and benchmarks that load the
 * example without pushing anything use these; `npm start` and the push tests set their own.
 */
export const EXAMPLE_PUSH_ENV = {
  PLATFORM_URL: 'http://127.0.0.1:9/integration',
  ERP_PUSH_SECRET: 'example-push-secret-of-the-tests',
} as const;

/** The example mapping's environment for an ERP at `erpUrl`. */
export function exampleEnv(erpUrl: string): Record<string, string> {
  return { ERP_URL: erpUrl, ...EXAMPLE_PUSH_ENV };
}
