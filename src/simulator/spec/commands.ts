/**
 * Vehicle commands: central locking (`PUT /vehicles/{registration}/central-locking`, body
 * `{"action":"lock"|"unlock"}`) and horn / hazard lights (`POST /vehicles/commands/{registration}`,
 * body `{"command":"horn"|"hazard_lights"}`), with the spec's cooldown: an accepted command
 * blocks the same command on the same vehicle for 30 s (injected clock) → 409 with `Retry-After`
 * (whole seconds, rounded up) and `{"data":null,"error":{"code":409,"message":…}}`. A different
 * command to the same vehicle, or the same command to another vehicle, is unaffected.
 * Decision: `lock` and `unlock` are two commands (each has its own cooldown). A rejected command
 * does not restart the cooldown.
 *
 * Legacy, no longer in the reference but still served: `PUT /vehicles/{registration}/immobilise`
 * (body `{"action":"immobilise"|"mobilise"}`) and `GET /vehicles/immobilise/status`; no cooldown.
 */
import { wireTs } from '../wire.ts';
import { objectBody, specRoute, type SpecContext } from './state.ts';
import { ApiError, vehicleByRegistration, type Reply, type Route } from '../routes/common.ts';

export const COMMAND_COOLDOWN_MS = 30_000;

const LOCK_ACTIONS = ['lock', 'unlock'] as const;
const HORN_COMMANDS = ['horn', 'hazard_lights'] as const;

function oneOf<T extends string>(value: unknown, allowed: readonly T[], field: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value))
    throw new ApiError(422, `The ${field} field is required and must be one of: ${allowed.join(', ')}.`);
  return value as T;
}

/** Accepts the command or answers 409 while the same command to the same vehicle cools down. */
function send(ctx: SpecContext, registration: string | undefined, command: string): Reply {
  const v = vehicleByRegistration(ctx.fleet, registration);
  const key = `${v.vehicle_id}|${command}`;
  const until = ctx.spec.cooldowns.get(key);
  if (until !== undefined && ctx.now < until) {
    const wait = Math.max(1, Math.ceil((until - ctx.now) / 1000));
    return {
      status: 409,
      headers: { 'Retry-After': String(wait) },
      body: {
        data: null,
        error: {
          code: 409,
          message: `The ${command} command for this vehicle is still being processed; retry in ${wait} seconds.`,
        },
      },
    };
  }
  ctx.spec.cooldowns.set(key, ctx.now + COMMAND_COOLDOWN_MS);
  const command_id = ctx.spec.nextId++;
  return {
    body: {
      data: {
        command_id,
        vehicle_id: v.vehicle_id,
        registration: v.registration,
        command,
        status: 'SENT',
        sent_ts: wireTs(ctx.now, ctx.fleet.timezone),
      },
    },
  };
}

export const commandRoutes: Route[] = [
  specRoute('PUT', '/vehicles/{registration}/central-locking', (ctx) => {
    vehicleByRegistration(ctx.fleet, ctx.params.registration); // 404 before body validation
    const action = oneOf(objectBody(ctx).action, LOCK_ACTIONS, 'action');
    return send(ctx, ctx.params.registration, action);
  }),
  specRoute('POST', '/vehicles/commands/{registration}', (ctx) => {
    vehicleByRegistration(ctx.fleet, ctx.params.registration);
    const command = oneOf(objectBody(ctx).command, HORN_COMMANDS, 'command');
    return send(ctx, ctx.params.registration, command);
  }),
  specRoute('PUT', '/vehicles/{registration}/immobilise', (ctx) => {
    const v = vehicleByRegistration(ctx.fleet, ctx.params.registration);
    const action = oneOf(objectBody(ctx).action, ['immobilise', 'mobilise'] as const, 'action');
    ctx.spec.immobilised.set(v.vehicle_id, { immobilised: action === 'immobilise', at_ms: ctx.now });
    return {
      body: { data: { vehicle_id: v.vehicle_id, registration: v.registration, action, status: 'SENT' } },
    };
  }),
  specRoute('GET', '/vehicles/immobilise/status', (ctx) => ({
    body: {
      data: ctx.fleet.vehicles.map((v) => {
        const s = ctx.spec.immobilised.get(v.vehicle_id);
        return {
          vehicle_id: v.vehicle_id,
          registration: v.registration,
          immobilised: s?.immobilised ?? false,
          updated_ts: s ? wireTs(s.at_ms, ctx.fleet.timezone) : null,
        };
      }),
    },
  })),
];
