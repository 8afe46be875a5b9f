import type { Validator } from '../contract/schema-registry';
import { secretAt, type CompileHelpers } from './compile-connectivity';
import { compileKeysOrUsers } from './compile-inbound';
import { compilePayloadSchema } from './payload-schema';
import type { CallDocument } from './format';
import type { OutboxDocument, PushDocument } from './format/mapping';
import type { CallSpec, LocatedExpression, Origin, OutboxSpec, PushAuthSpec, PushRule, PushSpec, SystemSpec, Template } from './model';
import type { Secret } from './secret';
import type { PathSegment } from './yaml-source';

/**
 * Compiles `push:` (the ERP's push endpoints) against `platform:`. Everything a push runs when it is
 * accepted (checks, idempotency key, records, transform, ordering key) reads only `input`, the pushed
 * JSON; the calls read what the transform gave.
 */

/** What compiling pushes needs of the mapping compiler (the same helpers the operations use). */
export interface PushCompileContext extends CompileHelpers {
  origin(path: readonly PathSegment[]): Origin;
  template(text: string, path: readonly PathSegment[]): Template | undefined;
  calls(raw: readonly CallDocument[], path: readonly PathSegment[], target: { readonly spec?: SystemSpec; readonly timeoutMs: number; readonly retry: CallSpec['retry'] }, owner: string): (CallSpec | undefined)[];
  outboxSettings(raw: OutboxDocument | undefined, path: readonly PathSegment[]): OutboxSpec | false;
  beforeAnyCall<T>(owner: string, defined: readonly string[], what: string, compile: () => T): T;
}

type PlatformTarget = Parameters<PushCompileContext['calls']>[2];

function compileAuth(h: PushCompileContext, raw: PushDocument['auth'], where: readonly PathSegment[]): PushAuthSpec | undefined {
  if (raw.type !== 'hmac') return compileKeysOrUsers(h, raw, where);
  const secrets = raw.secrets.map((secret, index) => secretAt(h, secret, [...where, 'secrets', index]));
  if (!secrets.every((secret): secret is Secret => secret !== undefined)) return undefined;
  return {
    type: 'hmac', header: raw.header, algorithm: raw.algorithm, encoding: raw.encoding, prefix: raw.prefix ?? '', secrets,
    timestampHeader: raw.timestampHeader === false ? undefined : raw.timestampHeader, toleranceSeconds: raw.toleranceSeconds,
  };
}

function compileSchema(h: PushCompileContext, raw: Record<string, unknown> | undefined, where: readonly PathSegment[]): Validator | undefined | false {
  if (raw === undefined) return undefined;
  try {
    return compilePayloadSchema(raw);
  } catch (error) {
    h.report('PUSH_SCHEMA_INVALID', where, `${where.join('.')} is not a valid JSON Schema: ${(error as Error).message}`);
    return false;
  }
}

function compilePush(h: PushCompileContext, name: string, raw: PushDocument, platform: PlatformTarget): PushSpec | undefined {
  const path = ['push', name];
  const owner = `push ${name}`;
  const auth = compileAuth(h, raw.auth, [...path, 'auth']);
  const schema = compileSchema(h, raw.schema, [...path, 'schema']);
  if (raw.schema === undefined && raw.rules === undefined) {
    h.report('PUSH_UNCHECKED', path, `push.${name} says nothing about what a valid push is: add schema (a JSON Schema) or rules (conditions with messages), so a bad push is refused with 400 instead of being forwarded`, h.source.keyAt(path));
  }
  const defined = raw.calls.map((call) => call.name);
  const accepted = h.beforeAnyCall(owner, defined, `push.${name}`, () => {
    const expression = (text: string | undefined, key: string) => (text === undefined ? undefined : h.expression(text, [...path, key]) ?? false);
    const rules = (raw.rules ?? []).map((rule, index): PushRule | undefined => {
      const expect = h.expression(rule.expect, [...path, 'rules', index, 'expect']);
      const message = h.template(rule.message, [...path, 'rules', index, 'message']);
      return expect && message && { expect, message };
    });
    return {
      rules, idempotencyKey: expression(raw.idempotencyKey, 'idempotencyKey'), records: expression(raw.records, 'records'), transform: expression(raw.transform, 'transform'),
      outbox: h.outboxSettings(raw.outbox, path),
    };
  });
  if (raw.outbox?.tryFirstMs !== undefined) {
    // The ERP is answered 202 as soon as the push is stored; no answer waits for the platform's verdict.
    h.report('SETTINGS_DISAGREE', [...path, 'outbox', 'tryFirstMs'], `push.${name}.outbox.tryFirstMs is for operations: a push is answered 202 once stored, and the platform's verdict reaches no one; remove it`);
    return undefined;
  }
  if (raw.batch !== undefined && raw.records === undefined) {
    h.warn('SETTINGS_DISAGREE', [...path, 'batch'], `push.${name}.batch has no effect without records: a push without records is one record`);
  }
  const calls = h.calls(raw.calls, path, platform, owner);
  const { rules, idempotencyKey, records, transform, outbox } = accepted;
  if (!auth || schema === false || rules.some((rule) => !rule) || !idempotencyKey || records === false || transform === false || outbox === false || calls.some((call) => !call)) return undefined;
  return {
    name, auth, schema, rules: rules as PushRule[], idempotencyKey: idempotencyKey as LocatedExpression, records: records as LocatedExpression | undefined, batch: raw.batch,
    transform: transform as LocatedExpression | undefined, calls: calls as CallSpec[], deadlineMs: raw.deadlineMs, outbox, origin: h.origin(path),
  };
}

/** `platform` is the compiled platform: block; undefined when the mapping has none. */
export function compilePushes(h: PushCompileContext, raw: Readonly<Record<string, PushDocument>> | undefined, platform: PlatformTarget | undefined): Map<string, PushSpec> | undefined {
  const pushes = new Map<string, PushSpec>();
  if (raw === undefined) return pushes;
  if (platform === undefined) {
    h.report('PUSH_WITHOUT_PLATFORM', ['push'], 'push endpoints deliver to the platform, but the mapping has no platform: block (its baseUrl, auth, TLS, like system:)', h.source.keyAt(['push']));
    return undefined;
  }
  let ok = true;
  for (const [name, document] of Object.entries(raw)) {
    const compiled = compilePush(h, name, document, platform);
    if (compiled) pushes.set(name, compiled);
    else ok = false;
  }
  return ok ? pushes : undefined;
}
