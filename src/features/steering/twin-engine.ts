import type { InstanceStore } from '../../runtime/instance-store';
import { AGENT, AGENT_ACTIVE, AGENT_STATE, STEERING_PARAMS } from './layout';
import type { SteeringModel } from './model';
import { stepSteering, tableSizeFor } from './step';

/**
 * The most agents CrowdSteering steps on a WebGL 2 crowd, where its TypeScript twin (step.ts)
 * runs on the CPU: above about this many, one step of a packed crowd costs more than 2 ms of a
 * frame (measured on a 2-core AMD EPYC: `npm run bench -- --section steering`, "On WebGL 2";
 * docs/steering.md). addAgent refuses the next one by name.
 */
export const MAX_TWIN_AGENTS = 150;

const A = AGENT.size / 4;
const S = AGENT_STATE.size / 4;

/**
 * Steering on a WebGL 2 crowd: the TypeScript twin of the steering pass (stepSteering, the very
 * code the GPU pass is tested against) stepping the model's bytes on the CPU, then each agent's
 * placement and facing written into its instance record as steering.wgsl's moveAgents writes it
 * (the crowd uploads the changed records before it culls). Owns its state bytes (AGENT_STATE by
 * handle); no GPU object. The step allocates its grid and scratch (step.ts), a few KiB a frame at
 * MAX_TWIN_AGENTS.
 */
export class SteeringTwin {
  /** AGENT_STATE records by handle, as the GPU's state buffer holds them (readAgents reads them). */
  states = new ArrayBuffer(0);
  private handles = 0;
  private capacity = 0;
  private readonly world = new Float32Array(16);
  private params: DataView | undefined;
  /** Views of the model's agent bytes and of `states`, made again only when either buffer is replaced (growth). */
  private agentF32 = new Float32Array(0);
  private agentU32 = new Uint32Array(0);
  private stateF32 = new Float32Array(0);

  /** The step's handles and uniforms (SteeringPass.update's part that a CPU step needs): grows the states, keeping the agents' motion. */
  update(model: SteeringModel, handles: number): void {
    if (handles > this.capacity) {
      this.capacity = Math.max(handles, 2 * this.capacity);
      const grown = new ArrayBuffer(this.capacity * AGENT_STATE.size);
      new Uint8Array(grown).set(new Uint8Array(this.states));
      this.states = grown;
    }
    model.dirtyLo = Infinity;
    model.dirtyHi = 0;
    model.obstaclesChanged = false;
    this.handles = handles;
    if (this.params?.buffer !== model.params) this.params = new DataView(model.params);
    const view = this.params;
    view.setUint32(STEERING_PARAMS.handleCount, handles, true);
    view.setUint32(STEERING_PARAMS.tableSize, tableSizeFor(this.capacity), true);
  }

  /** One step of the uniforms update() wrote, then every live agent's world matrix into `store`'s records. */
  step(model: SteeringModel, store: InstanceStore): void {
    if (this.handles === 0) return;
    stepSteering({ agents: model.agents, states: this.states, obstacles: model.obstacles, fields: model.fields, params: model.params, projectionIterations: model.settings.projectionIterations });
    if (this.agentF32.buffer !== model.agents) [this.agentF32, this.agentU32] = [new Float32Array(model.agents), new Uint32Array(model.agents)];
    if (this.stateF32.buffer !== this.states) this.stateF32 = new Float32Array(this.states);
    const af = this.agentF32, au = this.agentU32, sf = this.stateF32;
    const w = this.world;
    for (let h = 0; h < this.handles; h++) {
      if (!(au[h * A + AGENT.flags / 4] & AGENT_ACTIVE) || !store.has(h)) continue;
      const heading = sf[h * S + AGENT_STATE.heading / 4], scale = af[h * A + AGENT.scale / 4];
      const c = Math.cos(heading) * scale, n = Math.sin(heading) * scale;
      w[0] = c; w[1] = 0; w[2] = -n; w[3] = 0;
      w[4] = 0; w[5] = scale; w[6] = 0; w[7] = 0;
      w[8] = n; w[9] = 0; w[10] = c; w[11] = 0;
      w[12] = sf[h * S + AGENT_STATE.x / 4]; w[13] = af[h * A + AGENT.y / 4]; w[14] = sf[h * S + AGENT_STATE.z / 4]; w[15] = 1;
      store.records.setWorld(store.slot(h), w);
    }
  }
}
