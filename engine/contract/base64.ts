/**
 * Standard Base64 with correct padding: the one definition of "Base64" the contract's image answer
 * (a JSON Schema pattern) and the expression helpers check against.
 */
export const STRICT_BASE64_SOURCE = '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$';
export const STRICT_BASE64 = new RegExp(STRICT_BASE64_SOURCE);
