import { inspect } from 'node:util';

/**
 * A credential read from an environment variable. It prints as `***` everywhere (JSON, string
 * conversion, util.inspect, pino), so a model dump, a log line or an error message cannot carry it;
 * only the layer that puts it on the wire calls `reveal()`.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
    Object.freeze(this);
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return '***';
  }

  toJSON(): string {
    return '***';
  }

  [inspect.custom](): string {
    return '***';
  }
}
