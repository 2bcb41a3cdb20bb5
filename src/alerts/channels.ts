/**
 * Where alerts go: a JSON POST with a `text` field (shown as is by Slack and Teams incoming
 * webhooks) and/or an e-mail through SMTP (nodemailer). A channel that fails throws an error that
 * names the channel by its host only: the webhook's path and the SMTP password never appear.
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import nodemailer from 'nodemailer';
import type { Config } from '../config.ts';
import { ALERT_TIMEOUT_MS } from '../defaults.ts';

export interface AlertMessage {
  text: string;
  account: string;
  incident: string;
  /** `update`: the incident is still open and its cause changed. */
  state: 'open' | 'update' | 'recovered';
}

export interface Channel {
  /** A name without secrets, for logs: `webhook https://hooks.example.com`, `email smtp://mail:587`. */
  readonly name: string;
  /**
   * Who the channel reaches: its name and a digest of its whole setting (a webhook's path, the
   * recipients), so a re-configured channel is a new one that gets the open incidents.
   */
  readonly id: string;
  send(m: AlertMessage): Promise<void>;
  close(): void;
}

/** A channel's id: its name and a digest of its setting (never the setting itself: it may hold a secret). */
export const channelId = (name: string, ...setting: string[]): string =>
  `${name}#${createHash('sha256').update(setting.join('\u0000')).digest('hex').slice(0, 12)}`;

export function webhookChannel(url: string, fetchImpl: typeof fetch = fetch): Channel {
  const u = new URL(url);
  const name = `webhook ${u.protocol}//${u.host}`;
  return {
    name,
    id: channelId(name, url),
    async send(m) {
      let status: number;
      try {
        const res = await fetchImpl(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            text: m.text,
            fleetsync: { account: m.account, incident: m.incident, state: m.state },
          }),
          signal: AbortSignal.timeout(ALERT_TIMEOUT_MS),
          redirect: 'error',
        });
        status = res.status;
        await res.body?.cancel();
      } catch (e) {
        // The error of a failed fetch may quote the URL: only its kind is kept.
        const code = (e as { cause?: { code?: string } }).cause?.code ?? (e as Error).name;
        throw new Error(`${name}: no answer (${code})`, { cause: e });
      }
      if (status < 200 || status >= 300) throw new Error(`${name} answered HTTP ${status}`);
    },
    close() {},
  };
}

/**
 * An SMTP transport for `smtpUrl`, its name without secrets (`email smtp://mail:587`) and the
 * error a failed send becomes: the server's answer, never the password. Used by alerts and by the
 * month-end pack (src/reports/pack.ts).
 */
export function smtpTransport(smtpUrl: string, timeoutMs = ALERT_TIMEOUT_MS) {
  const u = new URL(smtpUrl);
  const name = `email ${u.protocol}//${u.host}`;
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  } as Parameters<typeof nodemailer.createTransport>[0]);
  // nodemailer's messages name the server's answer, not the credentials; keep only that.
  const failure = (e: unknown) => {
    const msg = e instanceof Error ? e.message : String(e);
    const secrets = [u.password, u.password && decodeURIComponent(u.password)].filter(Boolean);
    return new Error(`${name}: ${secrets.reduce((m, p) => m.split(p).join('***'), msg)}`, { cause: e });
  };
  return { name, transport, failure };
}

/** The sender of fleetsync's mail: FLEETSYNC_ALERT_FROM, else fleetsync at this host. */
export const mailFrom = (c: Pick<Config, 'alertFrom'>): string =>
  c.alertFrom ?? `fleetsync <fleetsync@${hostname()}>`;

export function emailChannel(smtpUrl: string, to: string[], from: string | null): Channel {
  const { name, transport, failure } = smtpTransport(smtpUrl);
  return {
    name,
    id: channelId(name, smtpUrl, ...to, from ?? ''),
    async send(m) {
      const subject = m.text.length > 140 ? `${m.text.slice(0, 137)}...` : m.text;
      try {
        await transport.sendMail({
          from: mailFrom({ alertFrom: from }),
          to,
          subject,
          text: `${m.text}\n\naccount: ${m.account}\nincident: ${m.incident}\nstate: ${m.state}\n`,
        });
      } catch (e) {
        throw failure(e);
      }
    },
    close: () => transport.close(),
  };
}

/** Whether any alert channel is set (a webhook, or an SMTP server with recipients). */
export const alertsConfigured = (c: Pick<Config, 'alertWebhook' | 'smtpUrl' | 'alertEmail'>): boolean =>
  !!c.alertWebhook || (!!c.smtpUrl && c.alertEmail.length > 0);

/** The channels the config turns on (none: alerts are only logged). */
export function channelsFor(
  c: Pick<Config, 'alertWebhook' | 'smtpUrl' | 'alertEmail' | 'alertFrom'>,
  fetchImpl?: typeof fetch,
): Channel[] {
  const out: Channel[] = [];
  if (c.alertWebhook) out.push(webhookChannel(c.alertWebhook, fetchImpl));
  if (c.smtpUrl && c.alertEmail.length) out.push(emailChannel(c.smtpUrl, c.alertEmail, c.alertFrom));
  return out;
}
