import type { Controls } from './controls';
import type { GLStats } from './gl-stats';
import type { MessageBox } from './overlays';
import type { Population } from './population';
import type { SceneModel } from './scene-model';
import { glInstances, type SceneState } from './scene-state';
import type { SceneActivity } from './scenes';
import { writeState, type DemoState } from './url-state';

/** Why dual-quaternion skinning is refused on WebGL 2. */
export const SKINNING_NEEDS_WEBGPU = 'dual-quaternion skinning needs WebGPU; this crowd skins linearly';
/** Why the stadium's flags are refused on WebGL 2. */
export const FLAGS_NEED_WEBGPU = 'the stadium\'s flags are CrowdProps, which needs WebGPU';

/**
 * What the WebGL 2 demo cannot do as the WebGPU one does, said on the page (docs/demo.md, "On
 * WebGL 2"): a setting refused by name (the message, the overlay's list and #stats'
 * data-gl-refused) and put back in the panel and the URL; the stadium seated for a GL crowd; the
 * looks the appearance control gives, where the GL crowd refuses them.
 */
export class GLRefusals {
  /** A scene's spectators whose looks the GL crowd refused (syncAppearance tried them once). */
  private plainSpectators: SceneActivity['spectators'];

  constructor(private readonly state: DemoState, private readonly sceneState: SceneState, private readonly overlay: GLStats,
    private readonly messages: MessageBox, private readonly controls: Controls) {}

  /** Shows why `what` is refused on WebGL 2, with the earlier refusals (and lists them in #stats' data-gl-refused), then puts the panel and the URL back with `undo`. */
  refuse(what: string, reason: string, undo: () => void): void {
    this.messages.show('info', `WebGL 2: ${this.overlay.refused(what, reason)}`);
    undo();
    this.controls.sync();
    writeState(this.state, this.sceneState);
  }

  /**
   * The stadium as WebGL 2 runs it, before it starts: GL_STADIUM_INSTANCES spectators where the
   * URL or the scene switch gave its WebGPU million (every one a mesh here: CrowdImpostors needs
   * WebGPU), said on the page; and no flags (CrowdProps needs WebGPU), refused by name.
   */
  adaptScene(): void {
    if (this.sceneState.scene !== 'stadium') return;
    const seats = glInstances('stadium', this.state.instances);
    if (seats !== this.state.instances) {
      this.state.instances = seats;
      this.messages.show('info', `WebGL 2: the stadium seats ${seats.toLocaleString('en-US')} spectators, every one a mesh (its far crowd as impostors needs WebGPU); the presets seat more`);
    }
    if (this.sceneState.flags) this.refuse('flags', FLAGS_NEED_WEBGPU, () => { this.sceneState.flags = false; });
  }

  /**
   * Each frame: the panel's appearance switch (the crowd scene's), and the looks a scene's own
   * spectators always get (the stadium's), through CrowdAppearance on the GL crowd where it
   * installs; else the switch turned off, or the spectators left plain, with the crowd's reason
   * (once, not each frame).
   */
  syncAppearance(model: SceneModel, activity: SceneActivity | undefined, population: Population): void {
    const spectators = activity?.spectators;
    if (spectators && this.plainSpectators === spectators) return;
    try {
      model.appearance.sync(spectators !== undefined || (this.state.appearance && !activity), spectators ?? population);
    } catch (error) {
      const reason = (error as Error).message.replace(/\.$/, '');
      if (spectators) {
        this.plainSpectators = spectators;
        this.messages.show('info', `WebGL 2: the spectators keep their plain look: ${reason}`);
      } else {
        this.refuse('appearance', reason, () => { this.state.appearance = false; });
      }
    }
  }
}
