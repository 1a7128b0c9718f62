/**
 * crowd-skin/three: crowds inside a three.js scene drawn by three's WebGPURenderer (three r187,
 * an optional peer dependency; nothing else in crowd-skin imports three), on either of its
 * backends: WebGPU, or its WebGL 2 fallback (no WebGPU, or `forceWebGL: true`), where the crowd is
 * a GLCrowd on three's context, posed by the GL pose pass, culled on the CPU and drawn by three
 * (shading 'three', three-gl-shading.ts).
 *
 *   import { WebGPURenderer, Scene, PerspectiveCamera } from 'three/webgpu';
 *   import { loadCharacter } from 'crowd-skin';
 *   import { ThreeCrowdRenderer } from 'crowd-skin/three';
 *
 *   const renderer = new WebGPURenderer({ antialias: true });
 *   await renderer.init();                                   // picks WebGPU, creates the GPUDevice
 *   const crowds = new ThreeCrowdRenderer(renderer);          // WebGPU, or three's WebGL 2 fallback
 *   const crowd = crowds.createCrowd(await loadCharacter('/models/Fox/Fox.glb'));
 *   crowd.add({ clipA: 'Walk', transform });                 // metres and seconds, as in three
 *   renderer.setAnimationLoop(() => {
 *     crowd.update(dt);                                      // the crowd clock, seconds
 *     crowds.render(scene, camera);                          // instead of renderer.render(scene, camera)
 *   });
 *
 * How a frame is drawn on WebGPU (all on three's GPUDevice, `renderer.backend.device`; on WebGL 2
 * steps 1, 3 and 4, the crowds culled and posed before 1 and drawn by three in it):
 * 1. three renders the scene's opaque objects into `target`, a RenderTarget with a colour
 *    texture and a DepthTexture of the canvas's drawing-buffer size (MSAA as the renderer's);
 * 2. one command buffer of ours: every crowd's pose compute pass, then one render pass that loads
 *    that colour and depth and draws the crowds with three's camera (projectionMatrix x
 *    matrixWorldInverse, WebGPU clip space z in [0, 1]), depth-tested against three's objects;
 * 3. three renders the transparent objects on top, so glass in front of a character blends over it;
 * 4. three's RenderPipeline writes `target` to the canvas with the renderer's toneMapping and
 *    outputColorSpace (what three does itself with its internal framebuffer target).
 */
import {
  RenderPipeline, RenderTarget, DepthTexture, FloatType, SRGBColorSpace, UnsignedByteType, Vector2,
  type Camera, type Object3D, type Renderer,
} from 'three/webgpu';
import { screenUV, texture } from 'three/tsl';
import { Crowd, type Character } from '../index';
import type { GLCrowd } from '../webgl2/gl-crowd';
import { queuedTransparent, threeBackendKind, webglContext, webgpuBackend, type WebGpuBackend } from './backend';
import { GpuCrowdPass } from './crowd-pass';
import { SceneLights, type ThreeCrowdLights } from './scene-lights';
import { FrameCamera } from './frame-camera';
import { checkDepthConventions, checkVertexStorage } from './renderer-checks';
import { adoptGLCrowd, createGLCrowd, releaseGLCrowd } from './gl-crowds';
import { ThreeGLShading } from './three-gl-shading';
import { ThreeShading, threeShadingOf, type ThreeShadingOptions } from './three-shading';
import type { ThreeCrowd, ThreeCrowdFormats, ThreeCrowdOf, ThreeCrowdOptions, ThreeCrowdRendererOptions } from './three-types';

export type { ThreeShadingOptions } from './three-shading';
export type { ThreeCrowdLights } from './scene-lights';
export type { ThreeCrowd, ThreeCrowdFormats, ThreeCrowdOf, ThreeCrowdOptions, ThreeCrowdRendererOptions } from './three-types';

const PREFIX = 'crowd-skin/three';

/**
 * Draws three.js scenes with crowds in them, sharing three's GPUDevice (or, on three's WebGL 2
 * backend, its WebGL 2 context), camera and depth buffer. Crowds made by createCrowd are owned by
 * it (dispose destroys them). Per frame: update each crowd, then render(scene, camera). Nothing is
 * allocated per frame but three's own work and WebGPU's command encoder.
 */
export class ThreeCrowdRenderer<B extends 'webgpu' | 'webgl2' = 'webgpu' | 'webgl2'> {
  /**
   * Which of three's backends the renderer runs: 'webgpu', or 'webgl2' (three's fallback: no
   * WebGPU in the browser, or `forceWebGL: true`), where createCrowd makes GLCrowds drawn by three
   * (shading 'three'; docs/three.md, "On three's WebGL 2 backend").
   */
  readonly backend: B;
  /** three's WebGL 2 context on its WebGL 2 backend (the crowds' textures live on it; not owned), else undefined. */
  readonly gl: WebGL2RenderingContext | undefined;
  /**
   * Where three draws the scene and the crowds draw over it, resized to the renderer's drawing
   * buffer each frame: 8-bit sRGB colour (linear values, encoded by the GPU) and a 32-bit float
   * DepthTexture. Sample `target.texture` in your own RenderPipeline to post-process the scene
   * with its crowds (see renderToTarget).
   */
  readonly target: RenderTarget;
  /** Formats and samples every crowd drawn here is created with (undefined on WebGL 2, where three draws every crowd). */
  readonly formats: Readonly<ThreeCrowdFormats> | undefined;
  /** Where crowds with shading 'crowd' take their lights (ThreeCrowdRendererOptions.lights). */
  readonly lights: ThreeCrowdLights;
  /** three's WebGPU backend (undefined on WebGL 2). */
  private readonly gpu: WebGpuBackend | undefined;
  /** The render pass of the crowds of shading 'crowd' (WebGPU only). */
  private readonly pass: GpuCrowdPass | undefined;
  private readonly output: RenderPipeline;
  private readonly transparentAfterCrowds: boolean;
  /** The scene's lights for crowds with shading 'crowd' (undefined: `lights: 'own'`). */
  private readonly sceneLights: SceneLights | undefined;
  private readonly crowds: ThreeCrowd[] = [];
  /** Crowds three draws (shading 'three'), with their three side; posed before three renders. */
  private readonly shaded = new Map<ThreeCrowd, ThreeShading | ThreeGLShading>();
  /** The same, as arrays walked each frame (no iterator allocated per frame). */
  private readonly shadedCrowds: ThreeCrowd[] = [];
  private readonly shadings: (ThreeShading | ThreeGLShading)[] = [];
  /** Crowds our pass leaves alone, lights too: three draws them, and no feature of theirs draws (impostors, props: drawn by our pass, Crowd.drawFeatures). */
  private readonly threeOnly = { has: (crowd: Crowd): boolean => this.shaded.has(crowd) && !(crowd.featureDrawCount > 0) };
  /** The render call's camera, handed to every crowd each frame (culling, LOD). */
  private readonly frameCamera: FrameCamera;
  private readonly drawingBufferSize = new Vector2();
  private readonly shadedEncoderDescriptor: GPUCommandEncoderDescriptor = { label: 'ThreeCrowdRenderer.threeShaded' };
  private readonly commandBuffers: GPUCommandBuffer[] = [];

  /**
   * `renderer` must be a three.js WebGPURenderer, initialised (`await renderer.init()`), on either
   * backend; each is checked and named when it is not so. Crowds of the default shading on WebGPU
   * also need a standard depth buffer (not reversed, not logarithmic), checked by createCrowd; shading 'three' does not.
   *
   * @param renderer The three.js renderer whose device or context, target and camera conventions the crowds share (not owned).
   */
  constructor(readonly renderer: Renderer, options: ThreeCrowdRendererOptions & { backend?: B } = {}) {
    const kind = threeBackendKind(renderer);
    if (options.backend !== undefined && options.backend !== kind) {
      throw new Error(`${PREFIX}: options.backend is '${String(options.backend)}', but the renderer runs three's ${kind === 'webgl2' ? "WebGL 2 fallback backend (no WebGPU here, or forceWebGL)" : 'WebGPU backend'}`);
    }
    this.backend = kind as B;
    this.gpu = this.backend === 'webgpu' ? webgpuBackend(renderer) : undefined;
    this.gl = this.backend === 'webgl2' ? webglContext(renderer) : undefined;
    if (this.gpu) checkVertexStorage(this.gpu.device);
    const samples = options.samples ?? (renderer.samples > 1 ? 4 : 1);
    if (samples !== 1 && samples !== 4) throw new RangeError(`${PREFIX}: samples must be 1 or 4 (WebGPU's MSAA counts), got ${samples}`);
    this.transparentAfterCrowds = options.transparentAfterCrowds ?? true;
    const lights = options.lights ?? 'scene';
    if (lights !== 'scene' && lights !== 'own') throw new RangeError(`${PREFIX}: lights must be 'scene' or 'own', got ${String(lights)}`);
    this.lights = lights;
    this.sceneLights = lights === 'scene' && this.gpu ? new SceneLights() : undefined;

    const { x: width, y: height } = this.targetSize();
    this.target = new RenderTarget(width, height, {
      // Linear colour in an sRGB-encoded 8-bit texture: three writes working-space (linear) values,
      // the crowd's shader too when its target format is -srgb (see below), and sampling decodes.
      type: UnsignedByteType,
      colorSpace: SRGBColorSpace,
      depthTexture: new DepthTexture(width, height, FloatType),
      samples: samples > 1 ? samples : 0,
      generateMipmaps: false,
    });
    this.target.texture.name = 'ThreeCrowdRenderer.color';
    this.target.depthTexture!.name = 'ThreeCrowdRenderer.depth';
    renderer.initRenderTarget(this.target);
    this.pass = this.gpu ? new GpuCrowdPass(this.gpu, this.target) : undefined;
    this.formats = this.pass?.formats;
    this.output = new RenderPipeline(renderer, texture(this.target.texture, screenUV));
    this.frameCamera = new FrameCamera(renderer);
  }

  /** three's GPUDevice: the crowds live on it (not owned). On three's WebGL 2 backend there is none: reading it throws, naming `gl`. */
  get device(): GPUDevice {
    if (!this.gpu) throw new Error(`${PREFIX}: the renderer runs three's WebGL 2 backend, which has no GPUDevice; its crowds live on ThreeCrowdRenderer.gl`);
    return this.gpu.device;
  }

  /**
   * A crowd of `character` drawn by every render() until removeCrowd or dispose: on WebGPU a Crowd
   * on three's device, in this renderer's formats; on WebGL 2 a GLCrowd on three's context, drawn
   * by three (shading 'three', the default there; 'crowd' is refused by name). `options` are
   * CrowdOptions but the formats (e.g. capacity).
   */
  createCrowd(character: Character, options: ThreeCrowdOptions = {}): ThreeCrowdOf<B> {
    const { shading, material, castShadow, receiveShadow, ...crowdOptions } = options as ThreeCrowdOptions & ThreeShadingOptions;
    if (shading !== undefined && shading !== 'crowd' && shading !== 'three') throw new RangeError(`${PREFIX}: shading must be 'crowd' or 'three', got ${String(shading)}`);
    if (this.gl) {
      const made = createGLCrowd(this.renderer, this.gl, character, shading, crowdOptions, { material, castShadow, receiveShadow });
      this.addShaded(made.crowd, made.shading);
      this.crowds.push(made.crowd);
      return made.crowd as ThreeCrowdOf<B>;
    }
    // Our own draw shares three's depth buffer; three's draws (shading 'three') follow three's conventions.
    if (shading !== 'three') checkDepthConventions(this.renderer);
    if (crowdOptions.lights !== undefined && this.lights === 'scene' && shading !== 'three') {
      throw new RangeError(`${PREFIX}: createCrowd: options.lights would be replaced by the scene's lights at the first render (this ThreeCrowdRenderer takes ` +
        "the scene's: ThreeCrowdRendererOptions.lights 'scene', the default); make the ThreeCrowdRenderer with { lights: 'own' } to light crowds yourself");
    }
    const crowd = new Crowd(this.gpu!.device, character, { ...crowdOptions, ...this.formats! });
    if (shading === 'three') {
      try {
        this.addShaded(crowd, new ThreeShading(crowd, this.gpu!, { material, castShadow, receiveShadow }));
      } catch (error) {
        crowd.destroy();
        throw error;
      }
    }
    this.crowds.push(crowd);
    return crowd as ThreeCrowdOf<B>;
  }

  /**
   * The three.js object of a crowd drawn by three (shading 'three'; every crowd on WebGL 2): a Group
   * of a Mesh per (primitive, LOD level): add it to the scene you render. Owned by the crowd's three side, destroyed with the crowd.
   */
  sceneObject(crowd: ThreeCrowd): Object3D {
    const shading = this.shaded.get(crowd);
    if (!shading) throw new RangeError(`${PREFIX}: sceneObject: this crowd was not made here with { shading: 'three' }`);
    return shading.object;
  }

  /**
   * Draws `crowd` from now on, restored onto this renderer's device: the way back after three's
   * device was lost. Make a new WebGPURenderer and a ThreeCrowdRenderer on it, release each crowd
   * from the old one (`removeCrowd(crowd, false)`) and adopt it here: Crowd.restore rebuilds its
   * GPU objects from what it kept, every instance as it was. A crowd with shading 'three' brings
   * its scene object (`sceneObject(crowd)`, the same Group: add it to the scene you render here)
   * and its three buffers are made anew on this renderer. The crowd's formats must be this
   * renderer's (`formats`); a crowd drawn here already is refused.
   *
   * On three's WebGL 2 backend the same after a lost context (three's renderer does not come back
   * from `webglcontextlost`): on `webglcontextrestored`, make the new WebGPURenderer on the same
   * canvas (its context, restored), release each GLCrowd from the old ThreeCrowdRenderer
   * (`removeCrowd(crowd, false)`) and adopt it here: GLCrowd.restore rebuilds its textures from
   * what it kept, its scene object comes along (docs/three.md). A GLCrowd on another context, or
   * adopted while the context is still lost, is refused by name.
   */
  adoptCrowd(crowd: ThreeCrowdOf<B>): void {
    if (this.crowds.includes(crowd)) throw new RangeError(`${PREFIX}: adoptCrowd: this crowd is drawn here already`);
    if (this.gl) {
      this.addShaded(crowd, adoptGLCrowd(this.renderer, this.gl, crowd as GLCrowd));
      this.crowds.push(crowd);
      return;
    }
    if ((crowd as { backend?: string }).backend !== 'webgpu') {
      throw new Error(`${PREFIX}: adoptCrowd: this renderer runs three's WebGPU backend and the crowd is a GLCrowd (WebGL 2): a crowd does not change backends (make it anew)`);
    }
    this.adoptGpuCrowd(crowd as Crowd);
  }

  /** adoptCrowd on WebGPU. */
  private adoptGpuCrowd(crowd: Crowd): void {
    if (!threeShadingOf(crowd)) checkDepthConventions(this.renderer);
    const have = crowd.targetFormats;
    const want = this.formats!;
    if (have.colorFormat !== want.colorFormat || have.depthFormat !== want.depthFormat || have.sampleCount !== want.sampleCount) {
      throw new RangeError(`${PREFIX}: adoptCrowd: the crowd draws into ${have.colorFormat} / ${have.depthFormat} x${have.sampleCount}, this renderer's target is ` +
        `${want.colorFormat} / ${want.depthFormat} x${want.sampleCount}; make the new renderer with the old one's samples`);
    }
    // shading 'three': three's side moves first, so that restore makes its buffers on this renderer.
    const shading = threeShadingOf(crowd);
    shading?.moveTo(this.gpu!);
    if (crowd.device !== this.gpu!.device) crowd.restore(this.gpu!.device);
    if (shading) this.addShaded(crowd, shading);
    this.crowds.push(crowd);
  }

  /**
   * Stops drawing `crowd` and destroys it (unless `destroy` is false: it is then yours, with its
   * three side, for adoptCrowd on another renderer; take its scene object out of the scene yourself).
   */
  removeCrowd(crowd: ThreeCrowd, destroy = true): void {
    const index = this.crowds.indexOf(crowd);
    if (index < 0) throw new RangeError(`${PREFIX}: removeCrowd: this crowd was not made by this ThreeCrowdRenderer's createCrowd, or was removed already`);
    this.crowds.splice(index, 1);
    const shading = this.shaded.get(crowd);
    if (shading) {
      this.shaded.delete(crowd);
      const at = this.shadedCrowds.indexOf(crowd);
      this.shadedCrowds.splice(at, 1);
      this.shadings.splice(at, 1);
      if (shading instanceof ThreeGLShading && destroy) releaseGLCrowd(crowd as GLCrowd);
    }
    if (destroy) crowd.destroy();
  }

  /**
   * Draws `scene` with its crowds as seen by `camera` into the renderer's current output (the
   * canvas, or the render target set with renderer.setRenderTarget), with the renderer's tone
   * mapping and output colour space. Call it where you would call renderer.render(scene, camera).
   */
  render(scene: Object3D, camera: Camera): void {
    this.renderToTarget(scene, camera);
    this.output.render();
  }

  /**
   * Draws `scene` and the crowds into `target` only (linear colour, no tone mapping), for a
   * post-processing chain of your own: e.g. `new RenderPipeline(renderer, bloom(texture(crowds.target.texture)))`.
   */
  renderToTarget(scene: Object3D, camera: Camera): void {
    if ((camera as { isArrayCamera?: boolean }).isArrayCamera) throw new TypeError(`${PREFIX}: ArrayCamera (WebXR, multi-view) is not supported: a crowd is drawn ` +
      '(and culled) with one camera per frame, in one pass after three\'s; it would need a draw per sub-camera into its viewport. Render each view with its own camera instead');
    const renderer = this.renderer;
    this.fitTarget();
    const previousTarget = renderer.getRenderTarget();
    const previousFace = renderer.getActiveCubeFace();
    const previousMip = renderer.getActiveMipmapLevel();
    const { transparent } = renderer;
    // Our pass runs for crowds of shading 'crowd', and for the impostors of those three draws.
    const ours = this.crowds.length > this.shaded.size || this.shadedFeatureDraws();
    const split = this.transparentAfterCrowds && transparent && ours;
    this.poseShadedCrowds(scene, camera);
    renderer.setRenderTarget(this.target);
    try {
      renderer.transparent = !split && transparent;
      renderer.render(scene, camera);
      renderer.transparent = transparent;
      if (ours) {
        // three's render updated the camera: WebGPU clip space, world matrices of this frame.
        this.sceneLights?.update(scene, camera, this.crowds as Crowd[], this.threeOnly);
        this.pass!.draw(this.crowds as Crowd[], this.shaded, camera, this.frameCamera);
      }
      // The second render only where three's first queued transparent objects (in view, in the camera's layers).
      if (split && queuedTransparent(renderer, scene, camera) !== false) this.renderTransparent(scene, camera);
    } finally {
      renderer.transparent = transparent;
      renderer.setRenderTarget(previousTarget, previousFace, previousMip);
    }
  }

  /** Destroys the crowds it owns (and their three meshes), the scene target and the output pipeline. The renderer is not touched. */
  dispose(): void {
    for (let i = 0; i < this.shadings.length; i++) if (this.shadings[i] instanceof ThreeGLShading) releaseGLCrowd(this.shadedCrowds[i] as GLCrowd);
    for (const crowd of this.crowds) crowd.destroy();
    this.crowds.length = 0;
    this.shaded.clear();
    this.shadedCrowds.length = this.shadings.length = 0;
    this.output.dispose();
    this.target.depthTexture?.dispose();
    this.target.dispose();
  }

  /**
   * Whether a crowd three draws (WebGPU) has features our pass draws after three's (impostors, props):
   * then our pass runs, in three's depth buffer, whose conventions are checked here (named).
   */
  private shadedFeatureDraws(): boolean {
    if (!this.gpu) return false;
    let any = false;
    for (let i = 0; i < this.shadedCrowds.length; i++) if ((this.shadedCrowds[i] as Crowd).featureDrawCount > 0) any = true;
    if (any) checkDepthConventions(this.renderer, "a crowd with { shading: 'three' } has CrowdImpostors or CrowdProps, which our own pass draws after three's");
    return any;
  }

  /** Draws `crowd` through three from now on (its three side: `shading`). */
  private addShaded(crowd: ThreeCrowd, shading: ThreeShading | ThreeGLShading): void {
    this.shaded.set(crowd, shading);
    this.shadedCrowds.push(crowd);
    this.shadings.push(shading);
  }

  /**
   * Crowds three draws: culled for `camera` (and for the scene's shadow-casting light) and posed
   * before three renders (its shadow and colour passes read them): on WebGPU their pose passes and
   * the copies into three's buffers, submitted; on WebGL 2 the CPU cull, the GL pose pass and the
   * frame's draw lists, on three's context.
   */
  private poseShadedCrowds(scene: Object3D, camera: Camera): void {
    if (this.shadings.length === 0) return;
    const frameCamera = this.frameCamera;
    frameCamera.prepare(scene, camera);
    const encoder = this.gpu ? this.gpu.device.createCommandEncoder(this.shadedEncoderDescriptor) : undefined;
    for (let i = 0; i < this.shadings.length; i++) {
      const shading = this.shadings[i], crowd = this.shadedCrowds[i];
      shading.sync();
      // Casters are culled for the light only while the crowd casts shadows.
      const casts = shading.castsShadow;
      frameCamera.apply(crowd, camera, this.target.height, casts);
      shading.setCameras(camera, casts ? frameCamera.casterCamera : undefined);
      if (crowd.backend === 'webgl2') {
        crowd.encode();
        (shading as ThreeGLShading).afterEncode();
      } else {
        crowd.encode(encoder!);
      }
    }
    // WebGL 2: the GL passes put back what they change, but three re-applies its state anyway (its public way for a shared context).
    if (!encoder) return this.renderer.resetState();
    this.commandBuffers[0] = encoder.finish();
    this.gpu!.device.queue.submit(this.commandBuffers);
  }

  /** three's transparent objects, over what is in the target: nothing cleared, opaque objects off. */
  private renderTransparent(scene: Object3D, camera: Camera): void {
    const renderer = this.renderer;
    const { opaque, autoClear, autoClearColor, autoClearDepth, autoClearStencil } = renderer;
    // A scene.background colour makes three clear even with autoClear off; the per-buffer flags stop that.
    renderer.opaque = false;
    renderer.autoClear = renderer.autoClearColor = renderer.autoClearDepth = renderer.autoClearStencil = false;
    try {
      renderer.render(scene, camera);
    } finally {
      renderer.opaque = opaque;
      renderer.autoClear = autoClear;
      renderer.autoClearColor = autoClearColor;
      renderer.autoClearDepth = autoClearDepth;
      renderer.autoClearStencil = autoClearStencil;
    }
  }

  /** The canvas's drawing-buffer size in pixels (CSS size x pixel ratio), at least 1 x 1. */
  private targetSize(): Vector2 {
    const size = this.renderer.getDrawingBufferSize(this.drawingBufferSize);
    return size.set(Math.max(1, Math.floor(size.x)), Math.max(1, Math.floor(size.y)));
  }

  private fitTarget(): void {
    const { x, y } = this.targetSize();
    if (x !== this.target.width || y !== this.target.height) this.target.setSize(x, y);
  }
}

// Raycasting: three's Raycaster hits a crowd's instances through a CrowdObject3D (crowd-object.ts).
export { CrowdObject3D, type CrowdObject3DOptions } from './crowd-object';
