import { Type } from '@sinclair/typebox';
import { block, secret, text, variant, variants, withDefault } from './declare';

/**
 * How the warehouse platform's calls get in. Keys and passwords are lists so credentials can rotate
 * without downtime: add the new one, move the platform over, remove the old one.
 */

const user = block({
  username: text('The user name the caller sends.'),
  password: secret('The password of that user.'),
}, { description: 'One user the caller may authenticate as.' });

/** An API key in a header; push endpoints take the same declaration (the ERP is then the caller). */
export const apiKeyVariant = variant('type', 'apiKey', 'A key in a request header.', {
  header: withDefault(text('The request header that carries the key.'), 'X-Api-Key'),
  keys: Type.Array(secret('A key the caller may send.'), { minItems: 1, description: 'The keys accepted; more than one while a key is being rotated.' }),
});

export const basicVariant = variant('type', 'basic', 'HTTP Basic authentication.', {
  users: Type.Array(user, { minItems: 1, description: 'The users accepted; more than one while a password is being rotated.' }),
});

const inboundAuth = variants('type', [
  variant('type', 'none', 'No authentication: anyone who can reach the port may read work orders and report events. Only for a loopback address or a network that authenticates for the engine; serve warns otherwise.', {}),
  apiKeyVariant,
  basicVariant,
], 'How the platform must authenticate. A request without valid credentials is answered 401 and never reaches an operation.');

export const inbound = block({
  auth: withDefault(inboundAuth, { type: 'none' }),
}, { description: "The warehouse platform's calls to the engine." });
