/**
 * Geofences and the places trips start and end at. Depots and customer sites are geofenced
 * (non-toll); toll gantries and plazas are passed mid-trip. Geofence ids are UUIDs drawn from
 * the fleet seed alone, so they do not depend on the number of vehicles.
 */
import type { SimGeofence } from '../model.ts';
import { rngFor } from './prng.ts';

export const DEPOTS = ['Depot Silverwater', 'Depot Wetherill Park', 'Depot Botany'] as const;
export const SITES = [
  'Customer site Macquarie Park',
  'Customer site Parramatta Westfield',
  'Customer site Port Kembla',
  'Customer site Gosford Hospital',
  'Customer site Penrith Plaza',
  'Customer site Sydney Airport',
] as const;
export const TOLLS = [
  'M2 Motorway gantry Epping',
  'M2 Motorway gantry Lane Cove',
  'M5 East gantry Arncliffe',
  'M5 South-West plaza Hammondville',
  'M7 Motorway gantry Prestons',
  'M4 WestConnex gantry Homebush',
  'Lane Cove Tunnel gantry',
  'Cross City Tunnel gantry',
  'Sydney Harbour Bridge toll plaza',
  'Eastern Distributor toll plaza',
] as const;
/** Ordinary addresses (not geofenced). */
export const ADDRESSES = [
  '14 Church St, Parramatta NSW',
  '2 Railway Pde, Burwood NSW',
  '88 George St, Liverpool NSW',
  '5 Victoria Rd, Ryde NSW',
  '120 Pacific Hwy, Hornsby NSW',
  '31 Princes Hwy, Kogarah NSW',
  '7 Old Northern Rd, Castle Hill NSW',
  '40 Oxford St, Bondi Junction NSW',
  '9 Hume Hwy, Campbelltown NSW',
  '63 Great Western Hwy, Blacktown NSW',
  '17 Forest Rd, Hurstville NSW',
  '22 Mona Vale Rd, St Ives NSW',
  '4 Station St, Penrith NSW',
  '56 King St, Newtown NSW',
  '11 Crown St, Wollongong NSW',
  '3 Mann St, Gosford NSW',
];
export const STATIONS = [
  'Ampol Silverwater',
  'BP Homebush',
  'Shell Coles Express Ryde',
  '7-Eleven Liverpool',
  'Ampol Wetherill Park',
  'BP Botany',
];
/** Destinations of ordinary trips (sites weighted in by appearing once each). */
export const DESTINATIONS: readonly string[] = [...ADDRESSES, ...SITES];

const COLOURS = ['#1f77b4', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#ff7f0e'];

export interface Places {
  geofences: SimGeofence[];
  /** Geofence id of a depot or customer site, by the location string trips use. */
  byLocation: Map<string, string>;
  tolls: SimGeofence[];
}

export function makePlaces(seed: number): Places {
  const r = rngFor(seed, 'geofences');
  const geofences: SimGeofence[] = [];
  const byLocation = new Map<string, string>();
  const add = (name: string, is_toll: boolean, description: string | null) => {
    const g: SimGeofence = { geofence_id: r.uuid(), name, description, colour: r.pick(COLOURS), is_toll };
    geofences.push(g);
    if (!is_toll) byLocation.set(name, g.geofence_id);
    return g;
  };
  for (const d of DEPOTS) add(d, false, 'Company depot');
  for (const s of SITES) add(s, false, null);
  const tolls = TOLLS.map((t) => add(t, true, t.includes('plaza') ? 'Toll plaza' : 'Toll gantry'));
  return { geofences, byLocation, tolls };
}

export const homeDepotOf = (index: number): string => DEPOTS[index % DEPOTS.length]!;
