/**
 * The mutable side of one simulator (one `startSimulator` call): command cooldowns, immobiliser
 * states, driver associations that are not in the generated fleet (linkages, extra tag reads,
 * app self-assignments), delivery jobs and bulk uploads, and vision requests. The generated Fleet
 * stays the world's history; this is what clients did to it. Only the spec's routes (this
 * folder) read it; the routes the sync reads (../routes/) never do.
 *
 * Routes that need it are built with `specRoute`, which reads the state the server put on the
 * request context (server.ts passes `{ ...ctx, spec }`).
 */
import { ApiError, type Reply, type Route, type RouteContext } from '../routes/common.ts';

export interface DriverAssociation {
  vehicle_id: number;
  driver_id: string;
  at_ms: number;
}

export interface DeliveryJob {
  job_id: number;
  reference: string;
  customer_name: string;
  address: string;
  latitude: number | null;
  longitude: number | null;
  scheduled_date: string | null;
  driver_id: string | null;
  subuser_id: string | null;
  upload_id: string | null;
  status: 'UNASSIGNED' | 'ASSIGNED' | 'CANCELLED';
  created_ms: number;
}

export interface BulkUpload {
  upload_id: string;
  status: 'PROCESSING' | 'COMPLETED';
  submitted: number;
  created: { row: number; job_id: number; reference: string }[];
  failed: { row: number; reference: string | null; message: string }[];
  webhooks_url: string | null;
  /** What happened to the callback: null until sent. */
  webhook_status: number | 'error' | null;
}

export interface SpecState {
  /** `${vehicle_id}|${command}` → instant the cooldown ends. */
  cooldowns: Map<string, number>;
  immobilised: Map<number, { immobilised: boolean; at_ms: number }>;
  /** Linkage API: one active linkage per vehicle. */
  linkages: Map<number, DriverAssociation>;
  /** Tag reads besides the one at each trip start (a second driver badging in mid-trip). */
  tagReads: DriverAssociation[];
  /** Driver mobile app self-assignments. */
  appAssignments: DriverAssociation[];
  jobs: DeliveryJob[];
  uploads: Map<string, BulkUpload>;
  visionRequests: { request_id: string; kind: string; vehicle_id: number; at_ms: number }[];
  nextId: number;
  /** Key of the bulk-upload webhook signature (the main password, as "your API key"). */
  webhookKey: string;
  /** Posts a webhook callback; resolves with the receiver's status. */
  postWebhook: (url: string, body: string, headers: Record<string, string>) => Promise<number>;
  /** Background work (webhook callbacks) still running; `settle()` on the handle awaits it. */
  pending: Set<Promise<unknown>>;
  /** The subuser's id (for `subuser_id` validation and attribution). */
  subuserId: string;
}

/** The one subuser of the simulated account (UUID). */
export const SIM_SUBUSER_ID = '5b1f6c2e-0d7a-4e43-9a51-3c8e2f1d9b07';

export async function defaultPostWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  await res.arrayBuffer();
  return res.status;
}

export function createSpecState(
  opts: Pick<SpecState, 'webhookKey'> & Partial<Pick<SpecState, 'postWebhook'>>,
): SpecState {
  return {
    cooldowns: new Map(),
    immobilised: new Map(),
    linkages: new Map(),
    tagReads: [],
    appAssignments: [],
    jobs: [],
    uploads: new Map(),
    visionRequests: [],
    nextId: 1,
    webhookKey: opts.webhookKey,
    postWebhook: opts.postWebhook ?? defaultPostWebhook,
    pending: new Set(),
    subuserId: SIM_SUBUSER_ID,
  };
}

export interface SpecContext extends RouteContext {
  spec: SpecState;
}

/** A route whose handler sees the simulator's SpecState. */
export function specRoute(method: string, path: string, handler: (ctx: SpecContext) => Reply): Route {
  return {
    method,
    path,
    handler: (ctx) => {
      const spec = (ctx as Partial<SpecContext>).spec;
      if (!spec) throw new ApiError(500, 'simulator state missing from the request context');
      return handler({ ...ctx, spec });
    },
  };
}

/** The JSON object body of a write request, or 422. */
export function objectBody(ctx: RouteContext): Record<string, unknown> {
  const b = ctx.body;
  if (typeof b !== 'object' || b === null || Array.isArray(b))
    throw new ApiError(422, 'The request body must be a JSON object.');
  return b as Record<string, unknown>;
}
