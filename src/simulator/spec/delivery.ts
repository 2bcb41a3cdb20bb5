/**
 * Delivery jobs. Subuser rules (spec Authentication §6): every POST, PUT and DELETE under
 * /delivery/ answers 403 to a subuser (`deliveryWriteForbidden`, checked by the server before
 * routing, so it holds for paths without a route too); reads of jobs accept a subuser and return
 * the whole account's data; GET /delivery/reports/drivers is main-account only (403). A write by
 * the main account may set `subuser_id` (the account's subuser) to attribute it.
 *
 *   POST   /delivery/jobs               body {reference, customer_name, address, latitude?,
 *                                       longitude?, scheduled_date? (YYYY-MM-DD), driver_id?,
 *                                       subuser_id?} → 201 {data: job}; invalid → 422 {error}
 *   POST   /delivery/jobs/bulk-upload   body {jobs: [job…] (1–500), webhooks_url?} → 202
 *                                       {data: {upload_id, status: PROCESSING, submitted}};
 *                                       processed after the reply, then a callback POSTs
 *                                       {upload_id, status: COMPLETED, submitted, created: [{row,
 *                                       job_id, reference}], failed: [{row, reference, message}]}
 *                                       to webhooks_url with X-Webhook-Signature (hex HMAC-SHA256
 *                                       of the raw body keyed with the main password)
 *   GET    /delivery/jobs/bulk-upload/{upload_id}  the upload's outcome so far
 *   GET    /delivery/jobs               filter[status], filter[subuser_id], page, limit
 *   PUT    /delivery/jobs/{job_id}      body {status?, driver_id?, scheduled_date?}
 *   DELETE /delivery/jobs/{job_id}      → {data:{}}
 *   GET    /delivery/reports/drivers    jobs per driver (main account only)
 */
import { createHmac } from 'node:crypto';
import type { Fleet } from '../model.ts';
import {
  objectBody,
  specRoute,
  type BulkUpload,
  type DeliveryJob,
  type SpecContext,
  type SpecState,
} from './state.ts';
import { wireTs } from '../wire.ts';
import { ApiError, notFound, pageOf, paginate, type Route } from '../routes/common.ts';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** True when a subuser sends a write under /delivery/ (path under /rest). */
export function deliveryWriteForbidden(method: string, path: string, isSubuser: boolean): boolean {
  return isSubuser && WRITE_METHODS.has(method.toUpperCase()) && /^\/delivery(\/|$)/.test(path);
}

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;

function text(b: Record<string, unknown>, name: string, required: boolean): string | null {
  const v = b[name];
  if (v === undefined || v === null || v === '') {
    if (required) throw new ApiError(422, `The ${name} field is required.`);
    return null;
  }
  if (typeof v !== 'string') throw new ApiError(422, `The ${name} must be a string.`);
  if (v.length > 255) throw new ApiError(422, `The ${name} must not be greater than 255 characters.`);
  return v;
}

function coord(b: Record<string, unknown>, name: string, limit: number): number | null {
  const v = b[name];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isFinite(v) || Math.abs(v) > limit)
    throw new ApiError(422, `The ${name} must be a number between -${limit} and ${limit}.`);
  return v;
}

/** Validates one job (throws ApiError 422 with the reason) and builds it; not yet stored. */
function buildJob(fleet: Fleet, spec: SpecState, b: Record<string, unknown>, now: number): DeliveryJob {
  const scheduled = text(b, 'scheduled_date', false);
  if (scheduled !== null && !DAY_RE.test(scheduled))
    throw new ApiError(422, 'The scheduled_date must be a date in the format YYYY-MM-DD.');
  const driver = text(b, 'driver_id', false);
  if (driver !== null && !fleet.drivers.some((d) => d.driver_id === driver && !d.deactivated))
    throw new ApiError(422, 'The selected driver_id is invalid.');
  const subuser = text(b, 'subuser_id', false);
  if (subuser !== null && subuser !== spec.subuserId)
    throw new ApiError(422, 'The selected subuser_id is invalid.');
  const reference = text(b, 'reference', true)!;
  if (spec.jobs.some((j) => j.reference === reference && j.status !== 'CANCELLED'))
    throw new ApiError(422, 'The reference has already been taken.');
  return {
    job_id: 0,
    reference,
    customer_name: text(b, 'customer_name', true)!,
    address: text(b, 'address', true)!,
    latitude: coord(b, 'latitude', 90),
    longitude: coord(b, 'longitude', 180),
    scheduled_date: scheduled,
    driver_id: driver,
    subuser_id: subuser,
    upload_id: null,
    status: driver ? 'ASSIGNED' : 'UNASSIGNED',
    created_ms: now,
  };
}

function store(spec: SpecState, job: DeliveryJob): DeliveryJob {
  job.job_id = 5000 + spec.nextId++;
  spec.jobs.push(job);
  return job;
}

const jobWire = (j: DeliveryJob, zone: string) => ({
  job_id: j.job_id,
  reference: j.reference,
  customer_name: j.customer_name,
  address: j.address,
  latitude: j.latitude,
  longitude: j.longitude,
  scheduled_date: j.scheduled_date,
  driver_id: j.driver_id,
  subuser_id: j.subuser_id,
  upload_id: j.upload_id,
  status: j.status,
  created_ts: wireTs(j.created_ms, zone),
});

const uploadWire = (u: BulkUpload) => ({
  upload_id: u.upload_id,
  status: u.status,
  submitted: u.submitted,
  created: u.created,
  failed: u.failed,
});

/** Processes a bulk upload after the 202 went out, then posts the callback. */
function processUpload(ctx: SpecContext, upload: BulkUpload, rows: unknown[]): void {
  const { spec, fleet } = ctx;
  const work = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
    rows.forEach((row, i) => {
      const reference =
        typeof row === 'object' &&
        row !== null &&
        typeof (row as Record<string, unknown>).reference === 'string'
          ? ((row as Record<string, unknown>).reference as string)
          : null;
      try {
        if (typeof row !== 'object' || row === null || Array.isArray(row))
          throw new ApiError(422, 'The row must be a JSON object.');
        const job = buildJob(fleet, spec, row as Record<string, unknown>, ctx.now);
        job.upload_id = upload.upload_id;
        store(spec, job);
        upload.created.push({ row: i + 1, job_id: job.job_id, reference: job.reference });
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        upload.failed.push({ row: i + 1, reference, message: e.message });
      }
    });
    upload.status = 'COMPLETED';
    if (!upload.webhooks_url) return;
    const body = JSON.stringify(uploadWire(upload));
    const signature = createHmac('sha256', spec.webhookKey).update(body).digest('hex');
    try {
      upload.webhook_status = await spec.postWebhook(upload.webhooks_url, body, {
        'X-Webhook-Signature': signature,
      });
    } catch (e) {
      upload.webhook_status = 'error';
      void e; // the receiver was unreachable: recorded on the upload, visible via GET
    }
  });
  spec.pending.add(work);
  void work.finally(() => spec.pending.delete(work));
}

export const deliveryRoutes: Route[] = [
  specRoute('POST', '/delivery/jobs', (ctx) => {
    const job = store(ctx.spec, buildJob(ctx.fleet, ctx.spec, objectBody(ctx), ctx.now));
    return { status: 201, body: { data: jobWire(job, ctx.fleet.timezone) } };
  }),
  specRoute('POST', '/delivery/jobs/bulk-upload', (ctx) => {
    const b = objectBody(ctx);
    const rows = b.jobs;
    if (!Array.isArray(rows) || rows.length === 0)
      throw new ApiError(422, 'The jobs field is required and must be a non-empty list.');
    if (rows.length > 500) throw new ApiError(422, 'The jobs field must not have more than 500 items.');
    const hook = b.webhooks_url;
    if (hook !== undefined && hook !== null) {
      let ok: boolean;
      try {
        ok = typeof hook === 'string' && /^https?:$/.test(new URL(hook).protocol);
      } catch {
        ok = false; // not a URL
      }
      if (!ok) throw new ApiError(422, 'The webhooks_url must be a valid http(s) URL.');
    }
    const upload: BulkUpload = {
      upload_id: `upl-${ctx.spec.nextId++}`,
      status: 'PROCESSING',
      submitted: rows.length,
      created: [],
      failed: [],
      webhooks_url: typeof hook === 'string' ? hook : null,
      webhook_status: null,
    };
    ctx.spec.uploads.set(upload.upload_id, upload);
    processUpload(ctx, upload, rows);
    return {
      status: 202,
      body: { data: { upload_id: upload.upload_id, status: 'PROCESSING', submitted: rows.length } },
    };
  }),
  specRoute('GET', '/delivery/jobs/bulk-upload/{upload_id}', (ctx) => {
    const u = ctx.spec.uploads.get(ctx.params.upload_id ?? '');
    if (!u) throw notFound('Upload');
    return { body: { data: { ...uploadWire(u), webhook_status: u.webhook_status } } };
  }),
  specRoute('GET', '/delivery/jobs', (ctx) => {
    const status = ctx.query.get('filter[status]');
    const sub = ctx.query.get('filter[subuser_id]');
    const jobs = ctx.spec.jobs.filter(
      (j) => (!status || j.status === status) && (!sub || j.subuser_id === sub),
    );
    return {
      body: paginate(
        jobs.map((j) => jobWire(j, ctx.fleet.timezone)),
        pageOf(ctx.query),
      ),
    };
  }),
  specRoute('PUT', '/delivery/jobs/{job_id}', (ctx) => {
    const job = ctx.spec.jobs.find((j) => String(j.job_id) === ctx.params.job_id);
    if (!job) throw notFound('Job');
    const b = objectBody(ctx);
    const st = b.status;
    if (st !== undefined && st !== 'UNASSIGNED' && st !== 'ASSIGNED' && st !== 'CANCELLED')
      throw new ApiError(422, 'The status must be one of: UNASSIGNED, ASSIGNED, CANCELLED.');
    const next = buildJob(
      ctx.fleet,
      { ...ctx.spec, jobs: [] },
      { ...jobWire(job, ''), ...b },
      job.created_ms,
    );
    Object.assign(job, { ...next, job_id: job.job_id, upload_id: job.upload_id, status: st ?? next.status });
    return { body: { data: jobWire(job, ctx.fleet.timezone) } };
  }),
  specRoute('DELETE', '/delivery/jobs/{job_id}', (ctx) => {
    const i = ctx.spec.jobs.findIndex((j) => String(j.job_id) === ctx.params.job_id);
    if (i < 0) throw notFound('Job');
    ctx.spec.jobs.splice(i, 1);
    return { body: { data: {} } };
  }),
  specRoute('GET', '/delivery/reports/drivers', (ctx) => {
    if (ctx.isSubuser) throw new ApiError(403, 'Forbidden: this report needs the main account credentials.');
    const data = ctx.fleet.drivers
      .filter((d) => !d.deactivated)
      .map((d) => {
        const mine = ctx.spec.jobs.filter((j) => j.driver_id === d.driver_id);
        return {
          driver_id: d.driver_id,
          first_name: d.first_name,
          last_name: d.last_name,
          jobs_total: mine.length,
          jobs_assigned: mine.filter((j) => j.status === 'ASSIGNED').length,
          jobs_cancelled: mine.filter((j) => j.status === 'CANCELLED').length,
        };
      });
    return { body: { data } };
  }),
];
