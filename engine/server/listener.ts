import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';

/**
 * The platform's (or the admin) listener: plain HTTP, HTTPS, or HTTPS that requires a client
 * certificate from a given CA (mutual TLS). Certificates are read once, at start.
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

export function readTlsFiles(files: TlsFiles): https.ServerOptions {
  const options: https.ServerOptions = {
    cert: read(files.certFile, '--tls-cert', 'certificate'),
    key: read(files.keyFile, '--tls-key', 'private key'),
    ...(files.clientCaFile ? { ca: read(files.clientCaFile, '--tls-client-ca', 'client CA certificates'), requestCert: true, rejectUnauthorized: true } : {}),
  };
  try {
    // Fails here, with a message, rather than at the first handshake.
    tls.createSecureContext(options);
  } catch (error) {
    const reason = (error as Error).message;
    if (/key values mismatch/i.test(reason)) throw new Error(`--tls-key ${files.keyFile} is not the private key of --tls-cert ${files.certFile}`);
    throw new Error(`the TLS files cannot be used (--tls-cert ${files.certFile}, --tls-key ${files.keyFile}${files.clientCaFile ? `, --tls-client-ca ${files.clientCaFile}` : ''}): ${reason}`);
  }
  return options;
}

/**
 * Timeouts: a client must send its headers within 30 s and the whole request within 5 minutes (a file
 * upload of tens of MB over a slow link); an idle keep-alive connection closes after 65 s, longer than
 * the 60 s idle timeout of common load balancers, so the balancer closes first and never reuses a
 * connection the engine is closing.
 */
export function createListener(handler: http.RequestListener, tlsFiles?: TlsFiles): http.Server | https.Server {
  const timeouts = { headersTimeout: 30_000, requestTimeout: 300_000, keepAliveTimeout: 65_000 };
  const server = tlsFiles ? https.createServer({ ...readTlsFiles(tlsFiles), ...timeouts }, handler) : http.createServer(timeouts, handler);
  return server;
}
