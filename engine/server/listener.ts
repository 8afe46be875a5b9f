import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import type { Logger } from '../log';

/**
 * The platform's (or the admin) listener: plain HTTP, HTTPS, or HTTPS that requires a client
 * certificate from a given CA (mutual TLS). Certificates are read at start and again on SIGHUP
 * (reloadCertificates).
 */
export interface TlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
  readonly clientCaFile?: string;
}

function read(file: string, flag: string, what: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    throw new Error(`${flag} ${file}: cannot read the ${what} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

/** An OpenSSL message without its "error:0480006C:PEM routines::" code prefix, which tells an operator nothing. */
function reason(error: unknown): string {
  return (error as Error).message.replace(/^error:[0-9A-F]+:[^:]*::/, '');
}

/** Checks one file alone, so a file that is not what its flag expects is named, not the set of three. */
function check(file: string, flag: string, what: string, options: tls.SecureContextOptions): void {
  try {
    tls.createSecureContext(options);
  } catch (error) {
    throw new Error(`${flag} ${file} is not a PEM ${what} (${reason(error)})`);
  }
}

/** OpenSSL accepts a CA file that holds no certificate, and mutual TLS would then refuse every client. */
function checkCa(file: string, pem: Buffer): void {
  const blocks = pem.toString('latin1').match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error(`--tls-client-ca ${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch (error) {
      throw new Error(`--tls-client-ca ${file}: a certificate in it cannot be read (${reason(error)})`);
    }
  }
}

/** Reads and checks the PEM files at start, so a wrong file stops `serve` with a message, not the first handshake. */
export function readTlsFiles(files: TlsFiles): https.ServerOptions {
  const cert = read(files.certFile, '--tls-cert', 'certificate');
  const key = read(files.keyFile, '--tls-key', 'private key');
  const ca = files.clientCaFile ? read(files.clientCaFile, '--tls-client-ca', 'client CA certificates') : undefined;
  check(files.certFile, '--tls-cert', 'certificate', { cert });
  check(files.keyFile, '--tls-key', 'private key', { key });
  if (files.clientCaFile && ca) checkCa(files.clientCaFile, ca);
  // Mutual TLS: the handshake fails for a client without a certificate signed by this CA.
  const options: https.ServerOptions = { cert, key, ...(ca ? { ca, requestCert: true, rejectUnauthorized: true } : {}) };
  try {
    tls.createSecureContext(options);
  } catch (error) {
    if (/key values mismatch/i.test(reason(error))) throw new Error(`--tls-key ${files.keyFile} is not the private key of --tls-cert ${files.certFile}`);
    throw new Error(`the TLS files cannot be used together (--tls-cert ${files.certFile}, --tls-key ${files.keyFile}${files.clientCaFile ? `, --tls-client-ca ${files.clientCaFile}` : ''}): ${reason(error)}`);
  }
  return options;
}

/**
 * Timeouts: a client must send its headers within 30 s (a stalled or slowloris client is dropped) and
 * the whole request within 5 minutes (a file upload of tens of MB over a slow link: 50 MB at 2 Mbit/s is
 * about 200 s). An idle keep-alive connection closes after 65 s: Node's default of 5 s is shorter than
 * the 60 s idle timeout of common load balancers, which then reuse a connection the engine is closing
 * and answer 502; at 65 s the balancer closes first. Node looks for overdue requests every 5 s (its
 * default of 30 s let a slow client stay up to 30 s past the limits).
 */
export interface ListenerTimeouts {
  readonly headersTimeout: number;
  readonly requestTimeout: number;
  readonly keepAliveTimeout: number;
  readonly connectionsCheckingInterval: number;
}

export const LISTENER_TIMEOUTS: ListenerTimeouts = Object.freeze({ headersTimeout: 30_000, requestTimeout: 300_000, keepAliveTimeout: 65_000, connectionsCheckingInterval: 5_000 });

/** `timeouts`: LISTENER_TIMEOUTS; tests shorten them to see them act. */
export function createListener(handler: http.RequestListener, tlsFiles?: TlsFiles, timeouts: ListenerTimeouts = LISTENER_TIMEOUTS): http.Server | https.Server {
  const server = tlsFiles ? https.createServer({ ...readTlsFiles(tlsFiles), ...timeouts }, handler) : http.createServer(timeouts, handler);
  return server;
}

/**
 * SIGHUP: the TLS files read and checked again, as at start. New connections get the new certificate;
 * connections already open keep the one they agreed on (setSecureContext changes only later
 * handshakes). Files that cannot be used (a renewal half copied, a key of another certificate) keep
 * the certificate that serves now, and the log says why: a renewal must never take the port down.
 */
export function reloadCertificates(server: http.Server | https.Server, files: TlsFiles | undefined, log: Logger): void {
  if (!files || !(server instanceof tls.Server)) return;
  try {
    server.setSecureContext(readTlsFiles(files));
  } catch (error) {
    log.error({ certFile: files.certFile, keyFile: files.keyFile }, `TLS files not reloaded; the certificate loaded before keeps serving: ${(error as Error).message}`);
    return;
  }
  log.info({ certFile: files.certFile, keyFile: files.keyFile, ...(files.clientCaFile ? { clientCaFile: files.clientCaFile } : {}) }, 'TLS certificate reloaded; new connections get it');
}
