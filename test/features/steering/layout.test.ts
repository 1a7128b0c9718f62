import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AGENT, AGENT_STATE, OBSTACLE_VERTEX, SORTED_AGENT, STEERING_PARAMS } from '../../../src/features/steering/layout';

const wgsl = readFileSync(new URL('../../../shaders/steering/steering.wgsl', import.meta.url), 'utf8');

/**
 * Offsets of `struct name`'s fields in the WGSL, for structs of 4-byte scalars only (what every
 * steering struct is): field i at 4 i, fields named pad* left out; the size is 4 x the field count.
 */
function scalarStruct(source: string, name: string): Record<string, number> {
  const body = new RegExp(`struct ${name} \\{([^}]*)\\}`).exec(source)?.[1];
  if (!body) throw new Error(`struct ${name} not found`);
  const fields = [...body.matchAll(/(\w+)\s*:\s*(\w+)/g)];
  const table: Record<string, number> = { size: 4 * fields.length };
  fields.forEach(([, field, type], i) => {
    if (!['f32', 'u32', 'i32'].includes(type)) throw new Error(`struct ${name}: ${field} is ${type}, not a 4-byte scalar`);
    if (!field.startsWith('pad')) table[field] = 4 * i;
  });
  return table;
}

describe('steering layouts (src/features/steering/layout.ts) against shaders/steering/steering.wgsl', () => {
  it('Agent, AgentState, SortedAgent, ObstacleVertex and SteeringParams match field for field', () => {
    expect({ ...AGENT }).toEqual(scalarStruct(wgsl, 'Agent'));
    expect({ ...AGENT_STATE }).toEqual(scalarStruct(wgsl, 'AgentState'));
    expect({ ...SORTED_AGENT }).toEqual(scalarStruct(wgsl, 'SortedAgent'));
    expect({ ...OBSTACLE_VERTEX }).toEqual(scalarStruct(wgsl, 'ObstacleVertex'));
    expect({ ...STEERING_PARAMS }).toEqual(scalarStruct(wgsl, 'SteeringParams'));
  });

  it('the check catches a field out of place (a made-up struct)', () => {
    expect(scalarStruct('struct S {\n  b: f32,\n  a: u32,\n  pad0: u32,\n}', 'S')).not.toEqual({ size: 12, a: 0, b: 4 });
    expect(() => scalarStruct('struct S {\n  a: vec2f,\n}', 'S')).toThrow(/not a 4-byte scalar/);
  });
});
