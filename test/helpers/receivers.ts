/**
 * Real receivers for alert tests: an HTTP server on port 0 that records every POST (a webhook),
 * an SMTP server (smtp-server) on port 0 that records every message, and a strict parser of the
 * Prometheus text format.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface WebhookReceiver {
  url: string;
  posts: { path: string; body: { text: string; [k: string]: unknown } }[];
  /** Answer every POST with this status from now on (e.g. 500 to play a failing channel). */
  status: number;
  close(): Promise<void>;
}

const bodyOf = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let s = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (s += c));
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const r: WebhookReceiver = { url: '', posts: [], status: 200, close: async () => {} };
  const server = createServer((req, res) => {
    void bodyOf(req).then((text) => {
      if (req.method === 'POST' && req.headers['content-type']?.startsWith('application/json'))
        r.posts.push({ path: req.url ?? '', body: JSON.parse(text) as { text: string } });
      res.statusCode = r.status;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  r.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return r;
}

export interface SmtpReceiver {
  port: number;
  mails: { from: string; to: string[]; user: string | null; raw: string }[];
  close(): Promise<void>;
}

/** An SMTP server with plain-text AUTH (user `alerts`, the given password) and no STARTTLS. */
export async function startSmtpReceiver(password: string): Promise<SmtpReceiver> {
  const mails: SmtpReceiver['mails'] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: false,
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === 'alerts' && auth.password === password) cb(null, { user: auth.username });
      else cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      let raw = '';
      stream.setEncoding('utf8');
      stream.on('data', (c: string) => (raw += c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((a) => a.address),
          user: typeof session.user === 'string' ? session.user : null,
          raw,
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return { port, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * The Prometheus text exposition format (0.0.4), strictly: `# HELP`/`# TYPE` lines, then samples
 * `name{label="value",…} number`. Any other line throws, naming it.
 */
export function parsePrometheus(text: string): { types: Record<string, string>; samples: Sample[] } {
  const types: Record<string, string> = {};
  const samples: Sample[] = [];
  const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
  const sampleRe = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (-?[0-9.e+-]+|NaN|[+-]Inf)(?: -?\\d+)?$`);
  const labelRe = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/gy;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (meta) {
      if (meta[1] === 'TYPE') {
        if (!/^(counter|gauge|histogram|summary|untyped)$/.test(meta[3]!))
          throw new Error(`bad TYPE: ${line}`);
        types[meta[2]!] = meta[3]!;
      }
      continue;
    }
    const m = sampleRe.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    if (m[2]) {
      labelRe.lastIndex = 0;
      let consumed = 0;
      let l: RegExpExecArray | null;
      while ((l = labelRe.exec(m[2])) !== null) {
        labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_x, c: string) => (c === 'n' ? '\n' : c));
        consumed = labelRe.lastIndex;
      }
      if (consumed !== m[2].length) throw new Error(`bad labels: ${JSON.stringify(line)}`);
    }
    const value = Number(m[3]!.replace('Inf', 'Infinity'));
    if (Number.isNaN(value) && m[3] !== 'NaN') throw new Error(`bad value: ${line}`);
    samples.push({ name: m[1]!, labels, value });
  }
  return { types, samples };
}

/** The one sample of `name` with exactly these labels (among others), or undefined. */
export function sample(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const hits = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (hits.length > 1) throw new Error(`${hits.length} samples of ${name} ${JSON.stringify(labels)}`);
  return hits[0]?.value;
}
