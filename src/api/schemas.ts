/**
 * Wire item → normalized record (src/api/types.ts), one schema per record kind, built for the
 * account's zone (timestamps without an offset are read in it). Every alias of the wire notes is
 * accepted. What the API adds that this version does not know is kept, never fatal: a record's
 * keys no schema field names go to its `extra_fields` (compact JSON of those keys only), and an
 * enum value outside the known list is kept exactly as sent with its `*_known` flag false.
 */
import { z } from 'zod';
import {
  BOOKING_STATUSES,
  CARPOOL_DRIVER_SETUP_STATUSES,
  CARPOOL_VEHICLE_SETUP_STATUSES,
  TRIP_TYPES,
  type Booking,
  type BookingRule,
  type CarpoolDriver,
  type CarpoolVehicle,
  type Driver,
  type EvConsumption,
  type FuelConsumed,
  type FuelFill,
  type FuelLevel,
  type FuelLevelPoint,
  type FuelLevelReading,
  type Geofence,
  type GeofenceVisit,
  type OdometerWindow,
  type Trip,
  type Vehicle,
  type VehicleActivity,
} from './types.ts';
import {
  bool,
  fast,
  fastObject,
  fastReader,
  intId,
  isObject,
  MISS,
  SoftFields,
  intList,
  num,
  optBool,
  optIntId,
  optNum,
  optStr,
  optStrOrNull,
  optTs,
  str,
  strId,
  strList,
  ts,
} from './wire.ts';

/** Pushes "missing a|b" for a required field that has aliases. */
function need<T>(v: T | null | undefined, names: string, ctx: { issues: unknown[] }): v is T {
  if (v !== null && v !== undefined) return true;
  ctx.issues.push({ code: 'custom', message: `missing ${names}`, path: [names.split('|')[0]!], input: v });
  return false;
}

/**
 * The keys of a wire item that `shape` does not name, as compact JSON; null when there are none.
 * A record keeps them so a later version can use them without pulling history again.
 */
export function extraFields(item: Kept, shape: object, soft?: ReadonlySet<string>): string | null {
  const wire = item[WIRE];
  let extra: Record<string, unknown> | null = null;
  for (const k in wire) if (!Object.hasOwn(shape, k) && !soft?.has(k)) (extra ??= {})[k] = wire[k];
  return extra === null ? null : JSON.stringify(extra);
}

/** A parsed item's own fields (those `shape` names) apart from its `extra_fields`. */
function splitExtras<T extends Kept>(
  item: T,
  shape: object,
): { own: Omit<T, typeof WIRE>; extra_fields: string | null } {
  const { [WIRE]: _wire, ...own } = item;
  return { own, extra_fields: extraFields(item, shape) };
}

/** Where a parsed item keeps the wire object it came from (for its extra fields). */
const WIRE = '__wire';
interface Kept {
  [WIRE]: Record<string, unknown>;
}

/**
 * An item schema that keeps the wire object beside the fields `shape` names (read its other keys
 * with `extraFields`). Not `z.looseObject`: that parses every unknown key (~10 µs a trip).
 */
const keeping = <S extends z.core.$ZodLooseShape>(shape: S) =>
  z.preprocess(
    (v) => (isObject(v) ? { ...v, [WIRE]: v } : v),
    z.object({ ...shape, [WIRE]: z.custom<Record<string, unknown>>() }),
  );

/** What a record's `post` may report a problem into (zod's context, or the fast path's). */
interface Ctx {
  issues: unknown[];
}

/**
 * A record schema: the fields of `shape`, then `post` (the record built from them, the same
 * function on both paths). Its fast path reads the fields without zod (wire.ts `fastObject`);
 * an item it cannot read, or one `post` reports a problem with, goes through zod for the error.
 * `keep`: the parsed fields carry the wire object (`extraFields`), as `keeping` gives them.
 */
function record<S extends z.core.$ZodLooseShape, R>(
  shape: S,
  post: (v: z.output<z.ZodObject<S>> & Kept, ctx: Ctx) => R,
  keep: boolean,
): z.ZodType<Exclude<R, typeof z.NEVER>> {
  const schema = (keep ? keeping(shape) : z.object(shape)).transform((v, ctx) =>
    post(v as z.output<z.ZodObject<S>> & Kept, ctx),
  ) as unknown as z.ZodType<Exclude<R, typeof z.NEVER>>;
  const fields = fastObject(shape);
  if (!fields) return schema;
  const issues: Ctx = { issues: [] };
  return fast(schema, (item) => {
    const v = fields(item);
    if (v === MISS) return MISS;
    if (keep) v[WIRE] = item;
    issues.issues.length = 0;
    const r = post(v as z.output<z.ZodObject<S>> & Kept, issues);
    return issues.issues.length > 0 ? MISS : (r as Exclude<R, typeof z.NEVER>);
  });
}
const kept = <S extends z.core.$ZodLooseShape, R>(
  shape: S,
  post: (v: z.output<z.ZodObject<S>> & Kept, ctx: Ctx) => R,
) => record(shape, post, true);
const plain = <S extends z.core.$ZodLooseShape, R>(
  shape: S,
  post: (v: z.output<z.ZodObject<S>>, ctx: Ctx) => R,
) => record(shape, post, false);

export interface OpenValue {
  value: string;
  known: boolean;
}

/**
 * A wire enum whose list may grow after this version shipped: a known value (matched without
 * regard to case, `prefix` optional on the wire) in its canonical spelling, any other non-empty
 * value exactly as sent with `known: false` — stored and flagged, never a failure.
 */
/** `s` as a value of `known` (case aside, `prefix` optional), else as sent and not known; null when blank. */
function openValue(known: readonly string[], s: string, prefix = ''): OpenValue | null {
  const up = s.trim().toUpperCase();
  if (up === '') return null;
  const full = prefix !== '' && !up.startsWith(prefix) ? `${prefix}${up}` : up;
  const hit = known.find((k) => k.toUpperCase() === full);
  return hit === undefined ? { value: s, known: false } : { value: hit, known: true };
}

function openEnum(known: readonly string[], prefix = '') {
  return fast(
    z.string().transform((s, ctx): OpenValue => {
      const v = openValue(known, s, prefix);
      if (v !== null) return v;
      ctx.issues.push({ code: 'custom', message: 'empty value', input: s });
      return z.NEVER;
    }),
    (s) => (typeof s === 'string' ? (openValue(known, s, prefix) ?? MISS) : MISS),
  );
}

const bookingStatus = openEnum(BOOKING_STATUSES, 'BOOKING_STATUS_');

const sensors = z
  .object({
    fuel_canbus_consumed: optBool,
    fuel_canbus_level: optBool,
    fuel_analog_level: optBool,
    electric_battery: optBool,
    electric_charging: optBool,
  })
  .nullish()
  .transform((s) => ({
    fuel_canbus_consumed: s?.fuel_canbus_consumed ?? false,
    fuel_canbus_level: s?.fuel_canbus_level ?? false,
    fuel_analog_level: s?.fuel_analog_level ?? false,
    electric_battery: s?.electric_battery ?? false,
    electric_charging: s?.electric_charging ?? false,
  }));

function build(zone: string) {
  const T = ts(zone);
  const OT = optTs(zone);
  const readStrId = fastReader(strId)!;

  const vehicleShape = {
    vehicle_id: intId,
    registration: str,
    vehicle_name: optStr,
    client_vehicle_name: optStr,
    client_vehicle_description: optStr,
    manufacturer: optStr,
    model: optStr,
    model_year: optIntId,
    chassis_number: optStr,
    terminal_serial: optStr,
    sensors,
    fuel_type: optStr,
    engine_type: optStr,
    vehicle_class: optStr,
    vehicle_type: optStr,
  };
  const vehicle: z.ZodType<Vehicle> = kept(vehicleShape, (v) => ({
    vehicle_id: v.vehicle_id,
    registration: v.registration,
    vehicle_name: v.vehicle_name ?? v.client_vehicle_name,
    description: v.client_vehicle_description,
    manufacturer: v.manufacturer,
    model: v.model,
    model_year: v.model_year,
    chassis_number: v.chassis_number,
    terminal_serial: v.terminal_serial,
    sensors: v.sensors,
    fuel_type: v.fuel_type ?? v.engine_type,
    vehicle_class: v.vehicle_class ?? v.vehicle_type,
    extra_fields: extraFields(v, vehicleShape),
  }));

  const tripShape = {
    trip_id: strId,
    vehicle_id: intId,
    registration: str,
    start_timestamp: T,
    end_timestamp: T,
    trip_distance: num,
    start_odometer: optNum,
    end_odometer: optNum,
    driver_id: optStr,
    start_location: optStrOrNull,
    end_location: optStrOrNull,
  };
  // The informational fields (SoftFields: read without zod, a value of another type kept as sent).
  const trip: z.ZodType<Trip> = kept(tripShape, (t) => {
    const f = new SoftFields(t[WIRE]);
    const type = f.str('trip_type');
    const typed = type === null ? null : openValue(TRIP_TYPES, type);
    const rec = {
      trip_id: t.trip_id,
      vehicle_id: t.vehicle_id,
      registration: t.registration,
      start_ms: t.start_timestamp,
      end_ms: t.end_timestamp,
      trip_distance_m: t.trip_distance,
      start_odometer_m: t.start_odometer,
      end_odometer_m: t.end_odometer,
      driver_id: t.driver_id,
      start_location: t.start_location,
      end_location: t.end_location,
      trip_type: typed?.value ?? null,
      trip_type_known: typed?.known ?? true,
      is_private: f.bool('is_private'),
      trip_title: f.str('trip_title'),
      trip_extra_notes: f.str('trip_extra_notes'),
      harsh_braking_events: f.num('harsh_braking_events'),
      harsh_acceleration_events: f.num('harsh_acceleration_events'),
      harsh_cornering_events: f.num('harsh_cornering_events'),
      road_speeding_events: f.num('road_speeding_events'),
      road_speeding_duration_seconds: f.num('road_speeding_duration_seconds'),
      thresholds_speeding_events: f.num('thresholds_speeding_events'),
      thresholds_speeding_duration_seconds: f.num('thresholds_speeding_duration_seconds'),
      max_speed: f.num('max_speed'),
      start_geofence_name: f.str('start_geofence_name'),
      end_geofence_name: f.str('end_geofence_name'),
    };
    return { ...rec, extra_fields: extraFields(t, tripShape, f.read) };
  });

  /** `registration` may be absent in single-vehicle answers: the client fills it from the request. */
  const odometer: z.ZodType<Omit<OdometerWindow, 'registration'> & { registration: string | null }> = plain(
    {
      vehicle_id: optIntId,
      registration: optStr,
      start_odometer_value: optNum,
      end_odometer_value: optNum,
      distance: optNum,
      current_odometer_value: optNum,
      last_event_ts: OT,
      latest_event_ts: OT,
      // Required: they decide whether `distance` may be summed; a window without them must fail.
      odometer_reset: bool,
      terminal_has_changed: bool,
    },
    (o) => ({
      vehicle_id: o.vehicle_id,
      registration: o.registration,
      start_odometer_m: o.start_odometer_value,
      end_odometer_m: o.end_odometer_value,
      distance_m: o.distance,
      current_odometer_m: o.current_odometer_value,
      last_event_ms: o.last_event_ts ?? o.latest_event_ts,
      odometer_reset: o.odometer_reset,
      terminal_has_changed: o.terminal_has_changed,
    }),
  );

  const fuelConsumed: z.ZodType<Omit<FuelConsumed, 'registration'> & { registration: string | null }> = plain(
    {
      vehicle_id: optIntId,
      registration: optStr,
      fuel_consumed_start: optNum,
      fuel_consumed_end: optNum,
      fuel_consumed: optNum,
    },
    (f) => ({
      vehicle_id: f.vehicle_id,
      registration: f.registration,
      counter_start_l: f.fuel_consumed_start,
      counter_end_l: f.fuel_consumed_end,
      fuel_consumed_l: f.fuel_consumed,
    }),
  );

  const evConsumption: z.ZodType<Omit<EvConsumption, 'registration'> & { registration: string | null }> =
    plain(
      {
        vehicle_id: optIntId,
        registration: optStr,
        // required: an item without the energy would read as "no energy", which is not what it says
        energy_consumed_kwh: num,
        energy_charged_kwh: optNum,
        distance: optNum,
        start_soc: optNum,
        end_soc: optNum,
      },
      (e) => ({
        vehicle_id: e.vehicle_id,
        registration: e.registration,
        energy_consumed_kwh: e.energy_consumed_kwh,
        energy_charged_kwh: e.energy_charged_kwh,
        distance_m: e.distance,
        start_soc_pct: e.start_soc,
        end_soc_pct: e.end_soc,
      }),
    );

  /** Wire `{liters, timestamp, accurate}` or doc `{fuel_level, event_ts, is_accurate}`. */
  const levelFields = {
    liters: optNum,
    litres: optNum,
    fuel_level: optNum,
    timestamp: OT,
    event_ts: OT,
    accurate: optBool,
    is_accurate: optBool,
  };
  type LevelWire = z.infer<z.ZodObject<typeof levelFields>>;
  const readLevel = (p: LevelWire | null | undefined): FuelLevelPoint => ({
    litres: p?.liters ?? p?.litres ?? p?.fuel_level ?? null,
    ms: p?.timestamp ?? p?.event_ts ?? null,
    accurate: p?.accurate ?? p?.is_accurate ?? null,
  });
  const levelObject = fastObject(levelFields)!;
  const levelPoint: z.ZodType<FuelLevelPoint> = fast(
    z.object(levelFields).nullish().transform(readLevel),
    (v) => {
      if (v === null || v === undefined) return readLevel(v);
      const p = levelObject(v);
      return p === MISS ? MISS : readLevel(p as LevelWire);
    },
  );

  const fuelLevel: z.ZodType<Omit<FuelLevel, 'registration'> & { registration: string | null }> = plain(
    {
      vehicle_id: optIntId,
      registration: optStr,
      start_period: levelPoint,
      start: levelPoint,
      end_period: levelPoint,
      end: levelPoint,
      estimated_fuel_used: optNum,
      calibrated: optBool,
      is_calibrated: optBool,
    },
    (l) => ({
      vehicle_id: l.vehicle_id,
      registration: l.registration,
      start: l.start_period.litres !== null || l.start_period.ms !== null ? l.start_period : l.start,
      end: l.end_period.litres !== null || l.end_period.ms !== null ? l.end_period : l.end,
      estimated_fuel_used_l: l.estimated_fuel_used,
      calibrated: l.calibrated ?? l.is_calibrated,
    }),
  );

  // A reading of the level series: the wire names of the level estimate's points (`liters`,
  // `timestamp`, `accurate`) and the spec's (`fuel_level`, `event_ts`, `is_accurate`).
  // A reading of the level series: the same names as a point of the level estimate.
  const fuelLevelReading: z.ZodType<
    Omit<FuelLevelReading, 'registration'> & { registration: string | null }
  > = plain({ vehicle_id: optIntId, registration: optStr, ...levelFields }, (p, ctx) => {
    const { litres, ms, accurate } = readLevel(p);
    if (!need(litres, 'liters|fuel_level', ctx) || !need(ms, 'timestamp|event_ts', ctx)) return z.NEVER;
    return { vehicle_id: p.vehicle_id, registration: p.registration, ms, litres, accurate };
  });

  const fuelFillShape = {
    vehicle_id: optIntId,
    registration: optStr,
    fill_amount_litres: optNum,
    fuel_filled: optNum,
    fill_timestamp: OT,
    event_ts: OT,
    fill_odometer: optNum,
    odometer: optNum,
    fill_location: optStrOrNull,
    location: optStrOrNull,
    accurate: optBool,
  };
  const fuelFill: z.ZodType<Omit<FuelFill, 'registration'> & { registration: string | null }> = kept(
    fuelFillShape,
    (f, ctx) => {
      const amount = f.fill_amount_litres ?? f.fuel_filled;
      const at = f.fill_timestamp ?? f.event_ts;
      if (!need(amount, 'fill_amount_litres|fuel_filled', ctx) || !need(at, 'fill_timestamp|event_ts', ctx))
        return z.NEVER;
      return {
        vehicle_id: f.vehicle_id,
        registration: f.registration,
        fill_ms: at,
        amount_l: amount,
        odometer_m: f.fill_odometer ?? f.odometer,
        location: f.fill_location ?? f.location,
        accurate: f.accurate,
        extra_fields: extraFields(f, fuelFillShape),
      };
    },
  );

  const geofenceShape = {
    geofence_id: strId,
    name: str,
    description: optStr,
    colour: optStr,
    is_toll: optBool,
  };
  const geofence: z.ZodType<Geofence> = kept(geofenceShape, (g) => {
    const { own, extra_fields } = splitExtras(g, geofenceShape);
    return { ...own, is_toll: own.is_toll ?? false, extra_fields };
  });

  const visitShape = {
    vehicle_id: intId,
    registration: str,
    geofence_id: strId,
    geofence_name: optStr,
    is_toll: optBool,
    enter_timestamp: T,
    exit_timestamp: OT,
    duration_total: optNum,
  };
  const visit: z.ZodType<GeofenceVisit> = kept(visitShape, (v) => ({
    vehicle_id: v.vehicle_id,
    registration: v.registration,
    geofence_id: v.geofence_id,
    geofence_name: v.geofence_name,
    is_toll: v.is_toll,
    enter_ms: v.enter_timestamp,
    exit_ms: v.exit_timestamp,
    duration_s: v.duration_total,
    extra_fields: extraFields(v, visitShape),
  }));

  const bookingShape = {
    booking_id: intId,
    vehicle_id: intId,
    registration: str,
    driver_id: strId,
    department: optStr,
    booking_status: bookingStatus,
    is_approved: bool,
    approved_by: optStr,
    declined_by: optStr,
    start_ts: T,
    end_ts: T,
    picked_up_at: OT,
    returned_at: OT,
    created_ts: T,
    updated_ts: T,
  };
  const booking: z.ZodType<Booking> = kept(bookingShape, (b) => ({
    booking_id: b.booking_id,
    vehicle_id: b.vehicle_id,
    registration: b.registration,
    driver_id: b.driver_id,
    department: b.department,
    booking_status: b.booking_status.value,
    booking_status_known: b.booking_status.known,
    is_approved: b.is_approved,
    approved_by: b.approved_by,
    declined_by: b.declined_by,
    start_ms: b.start_ts,
    end_ms: b.end_ts,
    picked_up_ms: b.picked_up_at,
    returned_ms: b.returned_at,
    created_ms: b.created_ts,
    updated_ms: b.updated_ts,
    extra_fields: extraFields(b, bookingShape),
  }));

  const carpoolDriverShape = {
    driver_id: strId,
    first_name: optStr,
    last_name: optStr,
    department: optStr,
    can_book_carpool: bool,
    allow_system_auto_booking: bool,
    allow_specific_vehicle_booking: bool,
    license_type_ids: intList,
    special_licenses: strList,
    setup_status: openEnum(CARPOOL_DRIVER_SETUP_STATUSES),
  };
  /** A carpool record: its own fields, its setup_status split into value and flag, its extras. */
  const carpoolRecord = <T extends Kept & { setup_status: OpenValue }>(item: T, shape: object) => {
    const { own, extra_fields } = splitExtras(item, shape);
    return {
      ...own,
      setup_status: own.setup_status.value,
      setup_status_known: own.setup_status.known,
      extra_fields,
    };
  };
  const carpoolDriver: z.ZodType<CarpoolDriver> = kept(carpoolDriverShape, (d) =>
    carpoolRecord(d, carpoolDriverShape),
  );

  const carpoolVehicleShape = {
    vehicle_id: intId,
    registration: str,
    category: optStr,
    department: optStr,
    default_location: optStr,
    license_class: optStr,
    setup_status: openEnum(CARPOOL_VEHICLE_SETUP_STATUSES),
  };
  const carpoolVehicle: z.ZodType<CarpoolVehicle> = kept(carpoolVehicleShape, (v) =>
    carpoolRecord(v, carpoolVehicleShape),
  );

  const bookingRule: z.ZodType<BookingRule> = z
    .object({ booking_rule_id: intId, name: z.string(), value: z.unknown() })
    .transform((r) => ({ booking_rule_id: r.booking_rule_id, name: r.name, value: r.value ?? null }));

  /** Wire `idle_time_seconds`/`driving_time_seconds`, doc `idle_time`/`driving_time` (seconds either way). */
  const activityShape = {
    vehicle_id: intId,
    registration: str,
    date: optStr,
    first_ignition_on: OT,
    last_ignition_off: OT,
    idle_time_seconds: optNum,
    idle_time: optNum,
    driving_time_seconds: optNum,
    driving_time: optNum,
    drivers: fast(
      z
        .array(z.union([strId, z.object({ driver_id: strId }).transform((d) => d.driver_id)]))
        .nullish()
        .transform((d) => d ?? []),
      (v) => {
        if (v === null || v === undefined) return [];
        if (!Array.isArray(v)) return MISS;
        const ids: string[] = [];
        for (const d of v) {
          const id = isObject(d) ? readStrId(d.driver_id) : readStrId(d);
          if (id === MISS) return MISS;
          ids.push(id);
        }
        return ids;
      },
    ),
  };
  const activity: z.ZodType<VehicleActivity> = kept(activityShape, (a, ctx) => {
    const idle = a.idle_time_seconds ?? a.idle_time;
    const driving = a.driving_time_seconds ?? a.driving_time;
    if (
      !need(idle, 'idle_time_seconds|idle_time', ctx) ||
      !need(driving, 'driving_time_seconds|driving_time', ctx)
    )
      return z.NEVER;
    if (idle < 0 || driving < 0) {
      ctx.issues.push({ code: 'custom', message: 'negative idle or driving seconds', input: a });
      return z.NEVER;
    }
    return {
      vehicle_id: a.vehicle_id,
      registration: a.registration,
      date: a.date,
      first_ignition_on_ms: a.first_ignition_on,
      last_ignition_off_ms: a.last_ignition_off,
      idle_s: idle,
      driving_s: driving,
      driver_ids: [...new Set(a.drivers)],
      extra_fields: extraFields(a, activityShape),
    };
  });

  /** `groups` as names or as `{name}` objects. */
  const driverShape = {
    driver_id: strId,
    first_name: optStr,
    last_name: optStr,
    status: optStr,
    groups: z
      .array(
        z.union([
          z.string(),
          z.object({ name: z.string() }).transform((g) => g.name),
          z.object({ group_name: z.string() }).transform((g) => g.group_name),
        ]),
      )
      .nullish()
      .transform((g) => g ?? []),
  };
  const driver: z.ZodType<Driver> = kept(driverShape, (d) => {
    const { own, extra_fields } = splitExtras(d, driverShape);
    return { ...own, status: own.status === null ? null : own.status.toLowerCase(), extra_fields };
  });

  return {
    activity,
    driver,
    vehicle,
    trip,
    odometer,
    fuelConsumed,
    evConsumption,
    fuelLevel,
    fuelLevelReading,
    fuelFill,
    geofence,
    visit,
    booking,
    carpoolDriver,
    carpoolVehicle,
    bookingRule,
  };
}

export type Schemas = ReturnType<typeof build>;
const cache = new Map<string, Schemas>();

/** The item schemas for an account zone (cached). */
export function schemasFor(zone: string): Schemas {
  let s = cache.get(zone);
  if (!s) {
    s = build(zone);
    cache.set(zone, s);
  }
  return s;
}
