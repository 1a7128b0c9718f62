import { describe, expect, it } from 'vitest';
import { CrowdControllers } from '../../../src/features/controllers/crowd-controllers';
import { CrowdSteering } from '../../../src/features/steering/crowd-steering';
import { Crowd } from '../../../src/runtime/crowd';
import { CONTROL_STATE, INSTANCE } from '../../../src/runtime/layout';
import { readInstanceStack } from '../../../tools/control-readback';
import { testCharacter } from '../../helpers/character';
import { robotControllerConfig } from '../../helpers/control';
import { openTestDevice, readBuffer } from '../../helpers/gpu';
import { kernelOf } from '../../helpers/kernel';

/**
 * Steering feeds a GPU-driven controller's locomotion through the kernel's locomotion channel
 * (CrowdKernel.locomotionDrive): the controller's state (read back from the control pass) moves
 * as the agent does, its walk/run blend follows the agent's speed, and steering alone writes the
 * placement. The controllers are installed before steering, so only the 'drive' stage puts the
 * step before the control pass. One crowd, one agent, 30 frames (SwiftShader on CI).
 */

const device = await openTestDevice();
const FORMATS = { colorFormat: 'bgra8unorm', depthFormat: 'depth24plus' } as const;
const DT = 1 / 20;

describe.skipIf(!device)('CrowdSteering with CrowdControllers', async () => {
  const robot = await testCharacter('RobotExpressive');
  const crowd = new Crowd(device!, robot, FORMATS);
  const controllers = new CrowdControllers(crowd, robotControllerConfig(robot));
  const steering = new CrowdSteering(crowd);

  it('the controller walks/runs at the agent\'s speed and position; steering writes the placement', async () => {
    const walkSpeed = 1.6; // RobotExpressive.controller.json
    const id = crowd.add();
    crowd.setPlacement(id, 0, 0.25, -5, 0); // 0.25 up (a step), facing +z, toward the goal
    controllers.add(id, 0, -5, 0);
    // About 1.5 walkSpeed: half walk, half run.
    steering.addAgent(id, { radius: 0.4, maxSpeed: 3, preferredSpeed: 1.5 * walkSpeed, goal: [0, 30] });
    for (let f = 0; f < 30; f++) {
      controllers.update(DT);
      crowd.update(DT);
      const encoder = device!.createCommandEncoder();
      crowd.encode(encoder);
      device!.queue.submit([encoder.finish()]);
    }
    const agents = await steering.readAgents();
    const handle = kernelOf(crowd).store.handle(id);
    const states = new Float32Array(await readBuffer(device!, controllers.gpu.stateBuffer));
    const s = (handle * CONTROL_STATE.size) / 4;
    const [x, z, vx, vz] = [states[s], states[s + 1], states[s + 2], states[s + 3]];
    const [ax, az, avx, avz] = [agents.positions[0], agents.positions[1], agents.velocities[0], agents.velocities[1]];
    const speed = Math.hypot(avx, avz);
    console.log(`steered controller: agent at (${ax.toFixed(3)}, ${az.toFixed(3)}) speed ${speed.toFixed(4)}; controller at (${x.toFixed(3)}, ${z.toFixed(3)}) speed ${Math.hypot(vx, vz).toFixed(4)}`);
    expect(Math.abs(speed / (1.5 * walkSpeed) - 1)).toBeLessThan(0.02); // ORCA's keep-right nudge bends it a little
    // The controller's locomotion state is the agent's motion of this very frame.
    expect(Math.hypot(vx, vz)).toBeCloseTo(speed, 4);
    expect(Math.hypot(x - ax, z - az)).toBeLessThan(1e-4);
    // The blend the controller wrote: walk and run by p = speed / walkSpeed (run weight p - 1).
    const stack = await readInstanceStack(device!, crowd, id);
    const names = stack.layers.map((l) => robot.clipNames[l.clip]);
    expect([...names].sort()).toEqual(['Running', 'Walking']);
    const run = speed / walkSpeed - 1;
    expect(stack.layers[1].weight).toBeCloseTo(names[1] === 'Running' ? run : 1 - run, 3);
    // The placement is steering's (its position, not the controller's own integration from rest).
    expect(Math.hypot(stack.x - ax, stack.z - az)).toBeLessThan(1e-4);
    expect(stack.z).toBeGreaterThan(-5 + 25 * DT * speed);
    const slot = crowd.jointMatrixIndex(id) / crowd.jointsPerInstance;
    const record = new Float32Array(await readBuffer(device!, kernelOf(crowd).store.instanceBuffer, (slot + 1) * INSTANCE.size), slot * INSTANCE.size, INSTANCE.size / 4);
    expect(record[INSTANCE.world / 4 + 13]).toBe(0.25); // steering keeps the height; the control pass would write 0
  });
});
