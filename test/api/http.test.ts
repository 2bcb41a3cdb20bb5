/**
 * One HTTP exchange as the API sees it (a real server on a loopback port): the headers it gets,
 * JSON bodies only on POST; and the words a user reads when the transport fails or a sync is
 * cancelled.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, createAgent, describeTransportError, isAbort, sendHttp } from '../../src/api/http.ts';

interface Seen {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let origin: string;
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      res.writeHead(req.url?.startsWith('/missing') ? 404 : 200, {
        'content-type': 'application/json',
        'x-page': '2',
      });
      res.end(JSON.stringify({ ok: true }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('one exchange', () => {
  it('Basic auth is the RFC 7617 form of user:password', () => {
    expect(basicAuth('Aladdin', 'open sesame')).toBe('Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==');
    expect(basicAuth('ü', 'p:w')).toBe(`Basic ${Buffer.from('ü:p:w', 'utf8').toString('base64')}`);
  });

  it('a GET carries the credential and asks for JSON, with no body and no content type', async () => {
    const agent = createAgent({ connections: 2, timeoutMs: 5_000 });
    try {
      seen.length = 0;
      const res = await sendHttp(agent, origin, basicAuth('u', 'pw'), {
        method: 'GET',
        path: '/rest/vehicles?page=2&limit=500',
        timeoutMs: 5_000,
      });
      expect(res.status).toBe(200);
      expect(res.text).toBe('{"ok":true}');
      expect(res.headers['x-page']).toBe('2');
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ method: 'GET', url: '/rest/vehicles?page=2&limit=500', body: '' });
      expect(seen[0]!.headers.authorization).toBe(basicAuth('u', 'pw'));
      expect(seen[0]!.headers.accept).toBe('application/json');
      expect(seen[0]!.headers['content-type']).toBeUndefined();
    } finally {
      await agent.close();
    }
  });

  it('a POST sends its body as JSON; a 404 comes back as a status, not an exception', async () => {
    const agent = createAgent({ connections: 1, timeoutMs: 5_000 });
    try {
      seen.length = 0;
      await sendHttp(agent, origin, 'Basic x', {
        method: 'POST',
        path: '/rest/fuel/consumed',
        body: { registrations: ['CA 1'], start: '2026-05-01 00:00:00' },
        timeoutMs: 5_000,
      });
      expect(seen[0]).toMatchObject({
        method: 'POST',
        body: '{"registrations":["CA 1"],"start":"2026-05-01 00:00:00"}',
      });
      expect(seen[0]!.headers['content-type']).toBe('application/json');
      const missing = await sendHttp(agent, origin, 'Basic x', {
        method: 'GET',
        path: '/missing',
        timeoutMs: 5_000,
      });
      expect(missing.status).toBe(404);
    } finally {
      await agent.close();
    }
  });
});

describe('what a transport failure says', () => {
  const coded = (code: string, message: string) => Object.assign(new Error(message), { code });

  it('an API too slow to answer names the setting to change', () => {
    expect(describeTransportError(coded('UND_ERR_HEADERS_TIMEOUT', 'Headers Timeout Error'), 30_000)).toBe(
      'no answer within 30000 ms (FLEETSYNC_HTTP_TIMEOUT_MS); UND_ERR_HEADERS_TIMEOUT: Headers Timeout Error',
    );
    expect(describeTransportError(coded('UND_ERR_BODY_TIMEOUT', 'Body Timeout Error'), 5_000)).toBe(
      'no answer within 5000 ms (FLEETSYNC_HTTP_TIMEOUT_MS); UND_ERR_BODY_TIMEOUT: Body Timeout Error',
    );
    // Without the timeout known, only the error.
    expect(describeTransportError(coded('UND_ERR_HEADERS_TIMEOUT', 'Headers Timeout Error'))).toBe(
      'UND_ERR_HEADERS_TIMEOUT: Headers Timeout Error',
    );
  });

  it('other failures: the code (or the error’s name) and the message, at most 200 characters', () => {
    expect(describeTransportError(coded('UND_ERR_SOCKET', 'other side closed'), 30_000)).toBe(
      'UND_ERR_SOCKET: other side closed',
    );
    expect(describeTransportError(coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9'))).toBe(
      'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9',
    );
    expect(describeTransportError(new TypeError('fetch failed'))).toBe('TypeError: fetch failed');
    expect(describeTransportError(Object.assign(new Error('odd'), { code: 42 }))).toBe('Error: odd');
    expect(describeTransportError('socket hang up')).toBe('socket hang up');
    expect(describeTransportError(new Error('x'.repeat(500)))).toHaveLength(200);
    expect(describeTransportError('y'.repeat(500))).toHaveLength(200);
    expect(describeTransportError(coded('UND_ERR_BODY_TIMEOUT', 'z'.repeat(500)), 1000)).toHaveLength(200);
  });

  it('a cancelled sync is recognised by the signal or by the error, and nothing else is', () => {
    const aborted = new AbortController();
    aborted.abort();
    expect(isAbort(new Error('anything'), aborted.signal)).toBe(true);
    expect(isAbort(Object.assign(new Error('x'), { name: 'AbortError' }))).toBe(true);
    expect(isAbort(coded('UND_ERR_ABORTED', 'aborted'))).toBe(true);
    expect(isAbort(coded('ABORT_ERR', 'aborted'))).toBe(true);
    expect(isAbort(coded('UND_ERR_SOCKET', 'other side closed'), new AbortController().signal)).toBe(false);
    expect(isAbort(new Error('AbortError'))).toBe(false);
    expect(isAbort(null)).toBe(false);
    expect(isAbort(undefined)).toBe(false);
  });
});
