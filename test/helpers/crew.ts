// The small hub several UI tests start from: three crew members, a "shout" pipe that upper-cases their names, and a
// "crm" system.
import type { HubProcess } from './hub-process.js';

export const CREW = [
  { _id: 'ada', name: 'Ada Lovelace' },
  { _id: 'alan', name: 'Alan Turing' },
  { _id: 'grace', name: 'Grace Hopper' },
];

export const SHOUT_PIPE = {
  _id: 'shout',
  type: 'pipe',
  source: { type: 'dataset', dataset: 'crew-members' },
  transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'loud', ['upper', '_S.name']]] } },
  pump: { mode: 'manual' },
};

/** Store the crew, the shout pipe (plus `morePipes`) and the crm system in `hub`. */
export async function seedCrew(hub: HubProcess, morePipes: object[] = []): Promise<void> {
  await hub.json('/datasets/crew-members/entities', { method: 'POST', json: CREW });
  await hub.json('/pipes', { method: 'POST', json: [SHOUT_PIPE, ...morePipes] });
  await hub.json('/systems', { method: 'POST', json: [{ _id: 'crm', type: 'system:url', base_url: 'http://crm.invalid/api' }] });
}
