import type { StateKey } from '../controls';
import type { PopulationSettings } from '../population';
import type { Scene } from '../scene';
import { spiralHalfSide } from '../spiral';
import type { DemoState } from '../url-state';
import type { SceneActivity } from './activity';

/**
 * The crowd scene (the demo's original one): instances on a square spiral, each with its own
 * clips, phase, blend and speed (crowd mode) or the panel's (uniform mode). See Population.
 */
export class CrowdActivity implements SceneActivity {
  readonly kind = 'crowd';
  private respawnNeeded = false;
  private uniformChanged = false;
  private newPhases = false;

  constructor(private readonly scene: Scene, private readonly state: DemoState) {}

  get count(): number {
    return this.scene.population.count;
  }

  get cellSize(): readonly [number, number] {
    return this.scene.population.spacing;
  }

  get height(): number {
    return this.scene.population.height;
  }

  setCount(count: number): void {
    this.scene.population.setCount(count, this.settings());
  }

  settingChanged(key: StateKey): boolean {
    switch (key) {
      case 'mode':
      case 'variety':
        this.respawnNeeded = true;
        break;
      case 'clipA':
      case 'clipB':
        if (this.state.mode === 'crowd') this.respawnNeeded = true;
        else this.uniformChanged = true;
        break;
      case 'blend':
        this.uniformChanged = true;
        break;
      case 'randomPhases':
        this.uniformChanged = true;
        this.newPhases = this.state.randomPhases;
        break;
      default:
        return false;
    }
    return true;
  }

  apply(): void {
    const population = this.scene.population;
    const settings = this.settings();
    try {
      if (this.respawnNeeded) population.respawn(settings);
      else if (this.uniformChanged && settings.mode === 'uniform') population.applyUniform(settings, this.newPhases);
    } finally {
      this.respawnNeeded = this.uniformChanged = this.newPhases = false;
    }
  }

  update(): void {
    // Clips advance on the GPU; nothing changes per frame.
  }

  extent(out: Float32Array): void {
    const { population } = this.scene;
    const halfSide = spiralHalfSide(population.count);
    out[0] = halfSide * population.spacing[0];
    out[1] = halfSide * population.spacing[1];
    out[2] = 0;
  }

  follow(): boolean {
    return false;
  }

  describe(): void {
    // The overlay's standard lines say it all.
  }

  dispose(clearCrowd: boolean): void {
    if (clearCrowd) this.scene.population.setCount(0, this.settings());
  }

  private settings(): PopulationSettings {
    const { character } = this.scene;
    const { mode, blend, randomPhases, variety } = this.state;
    return { mode, blend, randomPhases, variety, clipA: character.clipIndex(this.state.clipA), clipB: character.clipIndex(this.state.clipB) };
  }
}
