import { Crowd, loadCharacter, type Character, type CrowdOptions } from '../src/index';
import { Population } from './population';

/** Where a scene's model came from: a name from MODELS, or a URL (then `model` is ''). */
export interface SceneSource {
  model: string;
  url: string;
}

/** One loaded character, its crowd on the device and the placement of its instances. */
export class Scene {
  readonly population: Population;

  constructor(readonly label: string, readonly source: SceneSource, readonly character: Character, readonly crowd: Crowd) {
    this.population = new Population(crowd, character);
  }

  /** Bytes of the baked lookup tables: tracks + trackRefs + rest. */
  get bakedBytes(): number {
    const { tracks, trackRefs, rest } = this.character.baked;
    return tracks.byteLength + trackRefs.byteLength + rest.byteLength;
  }

  destroy(): void {
    this.crowd.destroy();
  }
}

export interface SceneLoadOptions {
  crowd: CrowdOptions;
  onProgress: (loaded: number, total: number) => void;
  signal: AbortSignal;
}

/**
 * Downloads, bakes and uploads a character. Throws with a readable reason when the file is
 * missing or not a usable glTF, or when creating its GPU objects raises a validation or
 * out-of-memory error (caught with error scopes, so a bad model never reaches the frame loop).
 */
export async function loadScene(device: GPUDevice, label: string, source: SceneSource, options: SceneLoadOptions): Promise<Scene> {
  const character = await loadCharacter(source.url, { onProgress: options.onProgress, signal: options.signal });
  device.pushErrorScope('validation');
  device.pushErrorScope('out-of-memory');
  let crowd: Crowd | undefined;
  let thrown: unknown;
  try {
    crowd = new Crowd(device, character, options.crowd);
  } catch (error) {
    thrown = error;
  }
  // Both pops are issued before awaiting, so no other work lands in these scopes.
  const [memory, validation] = await Promise.all([device.popErrorScope(), device.popErrorScope()]);
  const gpuError = memory ?? validation;
  if (thrown || gpuError || !crowd) {
    crowd?.destroy();
    if (thrown) throw thrown;
    throw new Error(`the GPU rejected the model's buffers or pipelines: ${gpuError?.message ?? 'unknown error'}`);
  }
  return new Scene(label, source, character, crowd);
}
