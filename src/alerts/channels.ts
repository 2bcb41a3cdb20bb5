/**
 * Where alerts go: a JSON POST with a `text` field (shown as is by Slack and Teams incoming
 * webhooks) and/or an e-mail through SMTP (nodemailer). A channel that fails throws an error that
 * names the channel by its host only: the webhook's path and the SMTP password never appear.
 */
import { hostname } from 'node:os';
import nodemailer from 'nodemailer';
import type { Config } from '../config.ts';
import { ALERT_TIMEOUT_MS } from '../defaults.ts';

export interface AlertMessage {
  text: string;
  account: string;
  incident: string;
  state: 'open' | 'recovered';
}

export interface Channel {
  /** A name without secrets, for logs: `webhook https://hooks.example.com`, `email smtp://mail:587`. */
  readonly name: string;
  send(m: AlertMessage): Promise<void>;
  close(): void;
}

export function webhookChannel(url: string, fetchImpl: typeof fetch = fetch): Channel {
  const u = new URL(url);
  const name = `webhook ${u.protocol}//${u.host}`;
  return {
    name,
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

export function emailChannel(smtpUrl: string, to: string[], from: string | null): Channel {
  const u = new URL(smtpUrl);
  const name = `email ${u.protocol}//${u.host}`;
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    connectionTimeout: ALERT_TIMEOUT_MS,
    greetingTimeout: ALERT_TIMEOUT_MS,
    socketTimeout: ALERT_TIMEOUT_MS,
  } as Parameters<typeof nodemailer.createTransport>[0]);
  return {
    name,
    async send(m) {
      const subject = m.text.length > 140 ? `${m.text.slice(0, 137)}...` : m.text;
      try {
        await transport.sendMail({
          from: from ?? `fleetsync <fleetsync@${hostname()}>`,
          to,
          subject,
          text: `${m.text}\n\naccount: ${m.account}\nincident: ${m.incident}\nstate: ${m.state}\n`,
        });
      } catch (e) {
        // nodemailer's messages name the server's answer, not the credentials; keep only that.
        const msg = e instanceof Error ? e.message : String(e);
        throw new Error(`${name}: ${msg.split(u.password || '\u0000').join('***')}`, { cause: e });
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
