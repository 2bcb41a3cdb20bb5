/**
 * Bearer-token check for the API when the server listens beyond loopback. The comparison is
 * constant-time (SHA-256 digests of equal length through crypto.timingSafeEqual); the token
 * never reaches a log or a response.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

export function tokenMatches(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

export function requireBearer(token: string): RequestHandler {
  return (req, res, next) => {
    const header = req.get('authorization') ?? '';
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    if (m && tokenMatches(m[1]!, token)) return next();
    res
      .status(401)
      .set('WWW-Authenticate', 'Bearer realm="fleetsync"')
      .json({ error: 'E_AUTH', message: 'this server needs Authorization: Bearer <FLEETSYNC_TOKEN>' });
  };
}
