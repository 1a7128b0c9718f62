/**
 * CrowdObject3D: a crowd as three.js's Raycaster sees it. three's `Raycaster.intersectObject(s)`
 * calls `object.raycast(raycaster, intersects)` synchronously, so this answers from the CPU
 * (CrowdPicking.raycast: the instances whose reach box the ray crosses, posed on the CPU with the
 * twins of the GPU's pose and skin passes, their triangles intersected) and reports one hit per
 * instance as InstancedMesh does, with `instanceId`. raycastAsync answers from the GPU instead
 * (CrowdPicking.pick), a frame late, for every kind of instance. docs/three.md, docs/picking.md.
 */
import { Object3D, Vector3, type Intersection, type Raycaster } from 'three/webgpu';
import { CrowdPicking, type Crowd, type RaycastHit } from '../index';
import type { GLCrowd } from '../webgl2/gl-crowd';

const PREFIX = 'crowd-skin/three';

/** Options of a CrowdObject3D. */
export interface CrowdObject3DOptions {
  /**
   * The crowd's CrowdPicking, when it has one already (a crowd takes one picking feature);
   * default: one made here (`new CrowdPicking(crowd)`).
   */
  picking?: CrowdPicking;
}

/**
 * An Object3D standing for a crowd in three's scene graph, for raycasting: add it to the scene (or
 * pass it to intersectObject) and three's Raycaster returns the crowd's instances it hits, each as
 * `{ distance, point, object, instanceId, faceIndex, face: { a, b, c, normal, materialIndex },
 * normal }`, nearest first among the other objects' hits. It draws nothing (ThreeCrowdRenderer
 * draws the crowd) and its own transform is not applied: instances are placed in three's world
 * by their crowd transforms, so leave it at the origin, unrotated and unscaled (checked).
 * Not owned: disposing it destroys nothing.
 */
export class CrowdObject3D extends Object3D {
  /** Always true: tells a CrowdObject3D from other Object3Ds without instanceof (as three's isMesh does). */
  readonly isCrowdObject3D = true;
  override readonly type = 'CrowdObject3D';
  /** The picking feature its raycasts go through (the one passed in, or made from the crowd). */
  readonly picking: CrowdPicking;

  /**
   * @param crowd The crowd whose instances it answers for (not owned).
   * @param options Its CrowdPicking, if the crowd has one already.
   */
  constructor(readonly crowd: Crowd | GLCrowd, options: CrowdObject3DOptions = {}) {
    super();
    if (typeof options !== 'object' || options === null) throw new TypeError(`${PREFIX}: CrowdObject3D options must be { picking }, got ${String(options)}`);
    if (options.picking === undefined && crowd.hasFeature('picking')) {
      throw new Error(`${PREFIX}: this crowd has a CrowdPicking already (a crowd takes one): pass it as new CrowdObject3D(crowd, { picking })`);
    }
    // A GLCrowd takes a CrowdPicking where picking runs on WebGL 2 (its CPU raycaster); else it refuses it by name.
    this.picking = options.picking ?? new CrowdPicking(crowd as Crowd);
    this.frustumCulled = false;
  }

  /**
   * three's raycast hook (Raycaster.intersectObject calls it): pushes the crowd's instances that
   * `raycaster.ray` hits between raycaster.near and raycaster.far, one each (its nearest triangle),
   * posed on the CPU at the crowd's clock now. Instances with a layer stack (setLayers,
   * controllers) are not posed on the CPU and not reported: use raycastAsync for them.
   */
  override raycast(raycaster: Raycaster, intersects: Intersection[]): void {
    this.checkPlacement();
    const { ray, near, far } = raycaster;
    const hits = this.picking.raycast(
      { origin: [ray.origin.x, ray.origin.y, ray.origin.z], direction: [ray.direction.x, ray.direction.y, ray.direction.z] },
      Number.isFinite(far) ? { maxDistance: far } : {},
    );
    for (const hit of hits) if (hit.distance >= near) intersects.push(this.intersection(hit));
  }

  /**
   * The nearest instance `raycaster.ray` hits within raycaster.far, from the GPU (CrowdPicking.pick:
   * the frame's own skinning, so layers, controllers, morph targets and culling are as drawn),
   * settled a frame or two later (after the next crowd.update), or null. No face or normal.
   */
  async raycastAsync(raycaster: Raycaster): Promise<Intersection | null> {
    this.checkPlacement();
    const { ray, near, far } = raycaster;
    const hit = await this.picking.pick(
      { origin: [ray.origin.x, ray.origin.y, ray.origin.z], direction: [ray.direction.x, ray.direction.y, ray.direction.z] },
      Number.isFinite(far) ? { maxDistance: far } : {},
    );
    if (!hit || hit.distance < near) return null;
    return { distance: hit.distance, point: new Vector3(...hit.point), object: this, instanceId: hit.id };
  }

  private intersection(hit: RaycastHit): Intersection {
    const normal = new Vector3(...hit.normal);
    const [a, b, c] = hit.vertices;
    return {
      distance: hit.distance, point: new Vector3(...hit.point), object: this, instanceId: hit.id,
      faceIndex: hit.faceIndex, face: { a, b, c, normal, materialIndex: hit.primitive }, normal,
    };
  }

  /** The crowd is drawn in world space: a moved CrowdObject3D would raycast somewhere else than it draws. */
  private checkPlacement(): void {
    this.updateWorldMatrix(true, false);
    const e = this.matrixWorld.elements;
    for (let i = 0; i < 16; i++) {
      if (Math.abs(e[i] - (i % 5 === 0 ? 1 : 0)) > 1e-9) {
        throw new Error(`${PREFIX}: a CrowdObject3D must stay at the origin, unrotated and unscaled (its world matrix is not the identity): ` +
          'place instances with crowd.setTransform / setPlacement instead');
      }
    }
  }
}
