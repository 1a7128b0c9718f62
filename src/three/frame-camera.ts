/**
 * The camera of three's render call, handed to every crowd (ThreeCrowdRenderer.render): culling,
 * mesh LOD, animation LOD and the pose pass's culling then work in a three scene with no call
 * from the user. Under `shading: 'three'` the crowd is culled before three renders (three's
 * passes read the lists), so the camera's matrices are brought up to date here the way three's
 * render does it (scene and camera world matrices, the renderer's clip-space convention), and
 * the first shadow-casting DirectionalLight or SpotLight of the scene gives the light camera the
 * caster lists are culled for. Allocates nothing per frame.
 */
import { Matrix4, WebGLCoordinateSystem, type Camera, type Light, type Object3D, type Renderer } from 'three/webgpu';
import type { CameraOptions } from '../index';

/** What FrameCamera hands a camera to: a Crowd or a GLCrowd. */
export interface CameraTaker {
  setCamera(viewProjection: ArrayLike<number>, position: ArrayLike<number>, options?: CameraOptions): void;
  setCasterCamera(viewProjection: ArrayLike<number> | undefined): void;
}

/** WebGL clip space (z in [-w, w]) to WebGPU's (z in [0, w]), the crowd's culling convention: z' = (z + w) / 2. */
const GL_TO_ZERO_ONE = new Matrix4().set(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0.5, 0.5, 0, 0, 0, 1);

type ShadowLight = Light & { shadow: { camera: Camera; updateMatrices(light: Light): void } };

/** Per-frame camera state of one ThreeCrowdRenderer; owns nothing of three's. */
export class FrameCamera {
  /** The light camera casters are culled for this frame, or undefined (no shadow map drawn). */
  casterCamera: Camera | undefined;
  private readonly viewProjection = new Matrix4();
  private readonly casterViewProjection = new Matrix4();
  private readonly eye = new Float64Array(3);
  private readonly options: CameraOptions = { viewportHeight: 1 };
  private found: ShadowLight | undefined;
  private readonly visit = (object: Object3D): void => {
    const light = object as Partial<ShadowLight> & { isDirectionalLight?: boolean; isSpotLight?: boolean };
    if (this.found === undefined && light.castShadow === true && (light.isDirectionalLight === true || light.isSpotLight === true) && light.shadow?.camera) {
      this.found = light as ShadowLight;
    }
  };

  constructor(private readonly renderer: Renderer) {}

  /**
   * Before three renders `scene` with `camera`: world matrices and clip space as three's render
   * will have them, and the caster light (`scene`'s first visible shadow-casting directional or
   * spot light, when the renderer draws shadow maps) with its shadow camera updated.
   */
  prepare(scene: Object3D, camera: Camera): void {
    if (scene.matrixWorldAutoUpdate) scene.updateMatrixWorld();
    if (camera.parent === null && camera.matrixWorldAutoUpdate) camera.updateMatrixWorld();
    matchClipSpace(camera, this.renderer);
    this.toCrowdClip(this.viewProjection.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse));
    this.found = undefined;
    if (this.renderer.shadowMap.enabled) scene.traverseVisible(this.visit);
    const light = this.found as ShadowLight | undefined; // set by visit during the traversal
    this.casterCamera = light?.shadow.camera;
    if (light) {
      const shadowCamera = light.shadow.camera;
      matchClipSpace(shadowCamera, this.renderer);
      light.shadow.updateMatrices(light); // what three's shadow pass does before it draws
      this.toCrowdClip(this.casterViewProjection.multiplyMatrices(shadowCamera.projectionMatrix, shadowCamera.matrixWorldInverse));
    }
  }

  /** After three rendered with `camera`: its matrices as three drew, in the crowd's clip space (the default shading draws the crowd after three). */
  afterRender(camera: Camera): Matrix4 {
    return this.toCrowdClip(this.viewProjection.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse));
  }

  /** `m` in the crowd's clip space (z in [0, 1]): on three's WebGL 2 backend three's matrices have z in [-1, 1]. */
  private toCrowdClip(m: Matrix4): Matrix4 {
    return this.renderer.coordinateSystem === WebGLCoordinateSystem ? m.premultiply(GL_TO_ZERO_ONE) : m;
  }

  /** Gives `crowd` the camera of the last prepare / afterRender (its view-projection, eye and the target's height in pixels), and the caster light's camera. */
  apply(crowd: CameraTaker, camera: Camera, viewportHeight: number, caster: boolean): void {
    const m = camera.matrixWorld.elements;
    this.eye[0] = m[12];
    this.eye[1] = m[13];
    this.eye[2] = m[14];
    this.options.viewportHeight = viewportHeight;
    crowd.setCamera(this.viewProjection.elements, this.eye, this.options);
    crowd.setCasterCamera(caster && this.casterCamera ? this.casterViewProjection.elements : undefined);
  }
}

/** Puts `camera` in the renderer's clip-space convention (WebGPU: z in [0, 1]; WebGL: z in [-1, 1]), as three's render does. */
function matchClipSpace(camera: Camera, renderer: Renderer): void {
  if (camera.coordinateSystem === renderer.coordinateSystem) return;
  camera.coordinateSystem = renderer.coordinateSystem;
  (camera as Camera & { updateProjectionMatrix?(): void }).updateProjectionMatrix?.();
}
