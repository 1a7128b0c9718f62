import type { StateKey } from '../controls';
import type { InstanceId, PartialLayers, PickCamera, ScreenRect, SteeringAgents } from '../../src/index';
import type { Spectators } from '../appearance';
import type { OrbitCamera } from '../orbit-camera';
import type { SceneKind } from '../scene-state';

/**
 * What one scene of the demo does with a loaded model's crowd: which instances exist, how they
 * animate each frame, and what the overlay says about them. The App owns the model (Scene, or a SceneModel on WebGL 2) and
 * the page-long GPU objects; an activity only adds, animates and removes instances.
 */
export interface SceneActivity {
  readonly kind: SceneKind;
  /** Live instances. */
  readonly count: number;
  /** Minor ground-grid cell along x and z, world units. */
  readonly cellSize: readonly [number, number];
  /** Height of one character, world units (camera framing). */
  readonly height: number;
  /** Adds or removes instances; throws (the crowd's reason) when the device cannot hold them. */
  setCount(count: number): void;
  /**
   * A panel setting changed (the new value is already in the state objects the activity was
   * given). Returns whether apply() has work to do.
   */
  settingChanged(key: StateKey): boolean;
  /** Applies the settings changed since the last call (not per frame: only after a change). */
  apply(): void;
  /**
   * Per frame, before crowd.update: advances by dt seconds (0 when paused). Allocation-free.
   * `viewYaw` is the camera's yaw (for camera-relative input).
   */
  update(dt: number, viewYaw: number): void;
  /**
   * The area the camera frames at first, world units: half extents out[0] along x and out[1]
   * along z, around the point (0, out[2]) on the ground.
   */
  extent(out: Float32Array): void;
  /** Optional: whether the far crowd is drawn as impostors now (CrowdImpostors on the first body's crowd; the panel's `impostors` switch can turn them off). */
  readonly impostors?: boolean;
  /** Optional: the clips the impostors bake (ImpostorOptions.clips; default every clip): the ones its instances play, or most often show (an instance showing another stays a mesh). */
  readonly impostorClips?: readonly number[];
  /** Optional: what an instance with a masked or additive layer is past the switch (CrowdImpostors.partialLayers; default 'mesh'). */
  readonly impostorPartialLayers?: PartialLayers;
  /** Optional: the looks the impostors are sized for a look of the appearance spread (CrowdImpostors.sizedForLooks is this times AppearanceSpread.looksSpread; default 1): 2 where a prop of chosen instances needs a layer of its own (the stadium's flags). */
  readonly impostorLooks?: number;
  /** Optional: instances that always get the appearance control's looks (the stadium's spectators), whatever the switch says. */
  readonly spectators?: Spectators;
  /** Optional: after the camera framed extent() (at start and "reset camera"), sets a view of the scene's own. */
  placeCamera?(camera: OrbitCamera): void;
  /** Where the camera should look now, if the scene follows something: writes x, z into out and returns true. */
  follow(out: Float32Array): boolean;
  /** Optional: a click at (x, y), CSS pixels; true when the scene took it (the App's selection then does nothing). */
  click?(x: number, y: number, camera: PickCamera): boolean;
  /** Optional: a Shift + drag box ended on `rect`; true when the scene took it. */
  box?(rect: ScreenRect, camera: PickCamera): boolean;
  /** Optional: rings to draw on the ground (obstacles): x, z, radius each into `out`; returns how many. */
  rings?(out: Float32Array): number;
  /**
   * Optional, for the console and the e2e tests (never per frame): the scene's steering agents as
   * the GPU has them (CrowdSteering.readAgents), and which of them, if any, the keyboard drives
   * (-1: none). Undefined when the scene steers nothing.
   */
  readAgents?(): Promise<SteeringAgents & { keyboard: InstanceId }> | undefined;
  /** Optional: the device was lost; called before the crowd is restored onto a new one (Crowd.restore). */
  deviceLost?(): void;
  /** Overlay lines and data-* values for #stats (called a few times a second, not per frame). */
  describe(lines: string[], data: DOMStringMap): void;
  /**
   * Ends the scene: removes every instance it added when `clearCrowd` (another scene starts on
   * the same crowd; false when the crowd is about to be destroyed) and hides what it showed.
   */
  dispose(clearCrowd: boolean): void;
}
