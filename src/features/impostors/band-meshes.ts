import { CULL_ARGS } from '../../runtime/layout';
import type { KernelDraws } from '../../runtime/feature';
import { frameBindGroupAt } from '../../runtime/skin-frame';
import type { SkinPass } from '../../runtime/skin-pass';
import type { ImpostorDraws } from './impostor-route';

/**
 * The impostor band's meshes, drawn through the crowd's skin pass (its shader module, materials,
 * camera and shadow group): one indirect draw per primitive (the cull pass's arguments for the band,
 * after its impostors' quadruple) over the band list (listStride slots, then listStride fades by
 * slot), with the skin pass's BAND pipelines (skin.wgsl: each keeps the pixels its instance's
 * screen-door fade leaves to the mesh). Owned by CrowdImpostors; holds no GPU object of its own
 * but the band's frame bind group, made again when the skin pass is bound anew or the list moves.
 */
export class BandMeshes {
  /** The band's frame group over (list, offset), for the skin pass's inputs it was made with. */
  private group: { group: GPUBindGroup; list: GPUBuffer; offset: number; inputs: SkinPass['inputs'] } | undefined;

  /** Records the band's mesh draws of `lists` (the frame's, ImpostorRoute.draws) into `pass`, with `draws.skin`'s camera as its last update() wrote it. */
  draw(pass: GPURenderPassEncoder, draws: KernelDraws, device: GPUDevice, lists: ImpostorDraws): void {
    const skin = draws.skin;
    const inputs = skin.inputs;
    if (!inputs) throw new Error('BandMeshes.draw: the skin pass was never bound');
    const offset = lists.bandListOffset;
    let g = this.group;
    if (g?.inputs !== inputs || g.list !== lists.args || g.offset !== offset) {
      const group = frameBindGroupAt(device, skin.frameBindGroupLayout, 'SkinPass.frameBand', skin.camera, inputs[0], lists.args, offset, lists.bandListBytes, inputs[1]);
      g = this.group = { group, list: lists.args, offset, inputs };
    }
    pass.setBindGroup(0, g.group);
    pass.setBindGroup(2, skin.shadowGroup);
    const looks = skin.appearance?.refresh();
    const argsOffset = lists.bandArgsOffset + CULL_ARGS.impostorWords * 4;
    for (const item of skin.items) {
      pass.setPipeline(skin.bandPipeline(item));
      pass.setBindGroup(1, item.material);
      if (looks) pass.setBindGroup(3, looks[item.index]);
      draws.mesh.setBuffers(pass, item.mesh);
      pass.drawIndexedIndirect(lists.args, argsOffset + item.index * CULL_ARGS.drawWords * 4);
    }
  }
}
