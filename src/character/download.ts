import { ModelError } from '../bake/errors';

/** What a download may report and be stopped by (LoadOptions and ClipLoadOptions share them). */
export interface DownloadOptions {
  /** Download progress in bytes; `total` is 0 when the server does not say. */
  onProgress?: (loaded: number, total: number) => void;
  /** Aborts the download (fetch's signal). */
  signal?: AbortSignal;
}

/** Fetches `url` whole; an HTTP error is a ModelError naming the URL and status. */
export async function download(url: string, options: DownloadOptions): Promise<ArrayBuffer> {
  const response = await fetch(url, { signal: options.signal });
  if (!response.ok) throw new ModelError(`could not fetch ${url}: HTTP ${response.status} ${response.statusText}`);
  const total = Number(response.headers.get('content-length') ?? 0);
  if (!response.body || !options.onProgress) return response.arrayBuffer();
  const chunks: Uint8Array[] = [];
  let loaded = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.byteLength;
    options.onProgress(loaded, total);
  }
  const bytes = new Uint8Array(loaded);
  let offset = 0;
  for (const chunk of chunks) { bytes.set(chunk, offset); offset += chunk.byteLength; }
  return bytes.buffer;
}
