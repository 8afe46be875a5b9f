/**
 * `${VAR}` references in mapping text, read in one place for the loader (which expands them) and the
 * CLI's masker (which hides the secrets they bring in). The forms are the POSIX shell's:
 *
 * - `${VAR}`: the variable's value; unset is a problem (an empty value is a value).
 * - `${VAR:-default}`: the value, or `default` when the variable is unset or empty.
 * - `${VAR:?message}`: the value; unset or empty is a problem reported with `message`.
 * - `$${`: the literal text `${`.
 *
 * Nesting (`${A:-${B}}`) is not read: the text after `:-` runs to the first `}`.
 */
export type EnvReference =
  | { readonly kind: 'escape'; readonly index: number; readonly text: string }
  | { readonly kind: 'invalid'; readonly index: number; readonly text: string }
  | {
      readonly kind: 'variable';
      readonly index: number;
      readonly text: string;
      readonly name: string;
      /** `${VAR:-default}`: the default's text. */
      readonly fallback?: string;
      /** `${VAR:?message}`: the message (possibly empty). */
      readonly required?: string;
    };

const PATTERN = /\$\$\{|\$\{([^}]*)\}/g;
const INSIDE = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:-|:\?)(.*))?$/s;

export const ENV_FORMS = '${NAME}, ${NAME:-default} or ${NAME:?message}';

export function envReferences(text: string): EnvReference[] {
  if (!text.includes('${')) return [];
  return [...text.matchAll(PATTERN)].map((match): EnvReference => {
    const index = match.index;
    if (match[0] === '$${') return { kind: 'escape', index, text: match[0] };
    const inside = INSIDE.exec(match[1] ?? '');
    if (!inside) return { kind: 'invalid', index, text: match[0] };
    const [, name, operator, argument] = inside;
    if (operator === ':-') return { kind: 'variable', index, text: match[0], name, fallback: argument };
    if (operator === ':?') return { kind: 'variable', index, text: match[0], name, required: argument };
    return { kind: 'variable', index, text: match[0], name };
  });
}

/** What a variable reference stands for: its text, or unset (with the `:?` message when there is one). */
export function resolveReference(reference: Extract<EnvReference, { kind: 'variable' }>, env: NodeJS.ProcessEnv): { value: string } | { unset: string } {
  const value = env[reference.name];
  if (reference.fallback !== undefined) return { value: value === undefined || value === '' ? reference.fallback : value };
  if (reference.required !== undefined && value === '') return { unset: reference.required };
  if (value === undefined) return { unset: reference.required ?? '' };
  return { value };
}

/** Each reference of `text` replaced by what `replace` gives; text outside references is kept. */
export function replaceReferences(text: string, replace: (reference: EnvReference) => string): string {
  let result = '';
  let last = 0;
  for (const reference of envReferences(text)) {
    result += text.slice(last, reference.index) + replace(reference);
    last = reference.index + reference.text.length;
  }
  return result + text.slice(last);
}
