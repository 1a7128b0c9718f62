import { ProgressBar } from './overlays';
import { loadScene, type Scene, type SceneLoadOptions, type SceneSource } from './scene';

/**
 * The WebGPU demo's model loads, one at a time: a new load aborts the one under way, and a load
 * overtaken by a newer one is dropped (its scene destroyed, its error not reported). The
 * progress bar shows the current load's download, then its bake, and goes when it ends.
 */
export class SceneLoads {
  private token = 0;
  private abort: AbortController | undefined;
  private readonly progress = new ProgressBar();

  /**
   * Loads `source` (shown as `label`) on `device` with loadScene. Resolves to the scene, or to
   * undefined when a newer load began meanwhile; rejects with the load's error only when none did.
   */
  async load(device: GPUDevice, label: string, source: SceneSource, options: Omit<SceneLoadOptions, 'onProgress' | 'signal'>): Promise<Scene | undefined> {
    const token = ++this.token;
    this.abort?.abort();
    const abort = (this.abort = new AbortController());
    this.progress.show(`Loading ${label}…`, 0);
    const onProgress = (loaded: number, total: number) => {
      if (token !== this.token) return;
      if (total > 0 && loaded >= total) this.progress.show(`Baking ${label}…`);
      else this.progress.show(`Downloading ${label}… ${(loaded / 1024).toFixed(0)} KiB`, total > 0 ? loaded / total : undefined);
    };
    try {
      const scene = await loadScene(device, label, source, { ...options, onProgress, signal: abort.signal });
      if (token === this.token) return scene;
      scene.destroy();
      return undefined;
    } catch (error) {
      if (token !== this.token) return undefined;
      throw error;
    } finally {
      if (token === this.token) this.progress.hide();
    }
  }

  /** Aborts the load under way, if any (the device was lost). */
  stop(): void {
    this.abort?.abort();
  }
}
