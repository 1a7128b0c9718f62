import type { ControllerConfig } from '../src/anim/control/config';
import { applyEntry, type ScriptEntry, type SimulationEvent, type SimulationFrame } from '../src/anim/control/simulate';
import { loadCharacter, type Character, type LoadOptions } from '../src/character/character';
import { Crowd } from '../src/runtime/crowd';
import { CrowdControllers } from '../src/features/controllers/crowd-controllers';
import { CrowdEvents } from '../src/features/clip-events/crowd-events';
import { CrowdRootMotion } from '../src/features/root-motion/crowd-root-motion';
import { readInstanceStack } from './control-readback';
import { readModelFile } from './node-io';

/** A Character from a .glb or .gltf on disk (external files read from its folder only, as every tool does), with `options` (rootMotion, ...). */
export async function readCharacterFile(path: string, options: Omit<LoadOptions, 'readResource' | 'baseUrl'> = {}): Promise<Character> {
  const { data, ...resources } = await readModelFile(path);
  return loadCharacter(data, { ...options, ...resources });
}

/**
 * The simulation of src/anim/control/simulate.ts through the GPU-driven path: one instance of a
 * crowd under a GPU-driven controller, the script's commands applied at their frames, and each
 * frame's base and layers read back from what the control pass wrote (times at the crowd clock,
 * as the pose pass evaluates them), in the same JSON shape as the CPU simulation; each frame's
 * events are those the crowd's CrowdEvents fired in its update.
 */
export async function simulateOnGpu(device: GPUDevice, character: Character, config: ControllerConfig, script: ScriptEntry[], fps: number): Promise<SimulationFrame[]> {
  if (!(fps > 0) || !Number.isFinite(fps)) throw new RangeError(`fps must be a number > 0, got ${fps}`);
  const crowd = new Crowd(device, character, { colorFormat: 'bgra8unorm', depthFormat: 'depth24plus', capacity: 1 });
  if (character.rootMotion?.mode === 'apply') new CrowdRootMotion(crowd);
  const clipEvents = new CrowdEvents(crowd); // before the controllers, which schedule through it
  const controllers = new CrowdControllers(crowd, config, { driver: 'gpu' });
  const id = crowd.add();
  const controller = controllers.add(id);
  const { clipNames, masks } = config;
  const end = script.length ? script[script.length - 1].at : 0;
  const frames: SimulationFrame[] = [];
  let events: SimulationEvent[] = [];
  clipEvents.on((_id, name, clip, time) => events.push({ name, clip, time }));
  let next = 0;
  try {
    for (let k = 0; k <= Math.round(end * fps + 1e-9); k++) {
      const t = k / fps;
      while (next < script.length && script[next].at <= t + 1e-9) applyEntry(controller, script[next++]);
      const dt = k === 0 ? 0 : 1 / fps;
      events = [];
      controllers.update(dt);
      crowd.update(dt);
      const encoder = device.createCommandEncoder();
      crowd.encode(encoder);
      device.queue.submit([encoder.finish()]);
      const [base, ...layers] = (await readInstanceStack(device, crowd, id)).layers;
      frames.push({
        t, state: controller.state,
        base: { clip: clipNames[base.clip], time: base.time },
        // The crowd's masks are the config's, made in order by CrowdControllers: crowd mask k is config mask k.
        layers: layers.map((l) => ({ clip: clipNames[l.clip], time: l.time, weight: l.weight, ...(l.mask >= 0 ? { mask: masks[l.mask] } : {}) })),
        additive: [],
        events,
      });
    }
  } finally {
    crowd.destroy();
  }
  return frames;
}
