import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, ROOT, startServe, stoppedAfterEach, tempDir, writeFile } from './cli-process';

/**
 * `serve --tls-cert/--tls-key` and SIGHUP, as a certificate renewal does it: the files are replaced in
 * place, then the process is signalled. Real process, real TLS sockets.
 */

const { running, cleanups } = stoppedAfterEach(afterEach);
const fixture = (name: string) => fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'tls', name));
const LABEL_REQUEST = 'GET /WorkOrders/WorkOrderExternalIndexableValueLabel HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';

const MAPPING = `version: 1
name: tls-reload
system:
  baseUrl: http://127.0.0.1:9
operations:
  GetExternalIndexableValueLabel:
    static:
      label: ERP id
`;

/** An open TLS connection (the certificate is not checked: the test looks at which one is presented). */
async function connect(url: string): Promise<tls.TLSSocket> {
  const { hostname, port } = new URL(url);
  const socket = tls.connect({ host: hostname, port: Number(port), rejectUnauthorized: false });
  cleanups.push(async () => { socket.destroy(); });
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', resolve);
    socket.once('error', reject);
  });
  return socket;
}

async function presented(url: string): Promise<string> {
  const socket = await connect(url);
  const fingerprint = socket.getPeerCertificate().fingerprint256;
  socket.end();
  return fingerprint;
}

/** One HTTP/1.1 request on an open keep-alive connection; resolves with the status line. */
function statusLineOn(socket: tls.TLSSocket): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = '';
    const onData = (chunk: Buffer) => {
      answer += chunk.toString();
      if (!answer.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      resolve(answer.slice(0, answer.indexOf('\r\n')));
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.write(LABEL_REQUEST);
  });
}

const fingerprintOf = (pem: Buffer) => new X509Certificate(pem).fingerprint256;

describe('serve: TLS certificates reload on SIGHUP', () => {
  const times = (text: string, what: string) => text.split('\n').filter((line) => line.includes(what)).length;

  // --workers 2: the primary passes SIGHUP on, and every worker (each holds its own listener's certificate) reloads.
  it.each([[1], [2]])('%i process(es): new connections get the replaced certificate, an open one keeps working, a broken file keeps the current one and logs why', { timeout: 60_000 }, async (processes) => {
    const dir = tempDir();
    const cert = writeFile(dir, 'cert.pem', fixture('server.pem').toString());
    const key = writeFile(dir, 'key.pem', fixture('server.key').toString());
    const serving = await startServe([...(processes > 1 ? ['--workers', String(processes)] : []), '--tls-cert', cert, '--tls-key', key, writeFile(dir, 'label.yaml', MAPPING)], { LOG_LEVEL: 'info' });
    running.push(serving);
    const [url] = serving.urls;
    const before = fingerprintOf(fixture('server.pem'));
    const renewed = fingerprintOf(fixture('self-signed.pem'));
    expect(await presented(url)).toBe(before);
    const open = await connect(url);
    expect(await statusLineOn(open)).toBe('HTTP/1.1 200 OK');

    // The renewal: both files replaced, then SIGHUP.
    fs.writeFileSync(cert, fixture('self-signed.pem'));
    fs.writeFileSync(key, fixture('self-signed.key'));
    serving.child.kill('SIGHUP');
    await eventually(() => times(serving.output().stdout, 'TLS certificate reloaded') === processes, 'every process logs the reload');
    for (let connection = 0; connection < 4; connection += 1) expect(await presented(url)).toBe(renewed);
    expect(await statusLineOn(open)).toBe('HTTP/1.1 200 OK');
    expect(open.getPeerCertificate().fingerprint256).toBe(before);

    // A renewal half done: the new certificate without its key. The one serving stays.
    fs.writeFileSync(cert, fixture('server.pem'));
    serving.child.kill('SIGHUP');
    await eventually(() => times(serving.output().stdout, 'TLS files not reloaded') === processes, 'every process logs the refused reload');
    const refused = serving.output().stdout.split('\n').find((line) => line.includes('TLS files not reloaded'));
    expect(JSON.parse(refused ?? '{}')).toMatchObject({ level: 50, msg: `TLS files not reloaded; the certificate loaded before keeps serving: --tls-key ${key} is not the private key of --tls-cert ${cert}` });
    for (let connection = 0; connection < 4; connection += 1) expect(await presented(url)).toBe(renewed);
    expect(await statusLineOn(open)).toBe('HTTP/1.1 200 OK');
  });
});
