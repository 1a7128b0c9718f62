import { check, ModelError } from './errors';

/**
 * What a buffer or image `uri` of a glTF may name, and where it leads. Only two kinds are
 * allowed, in the browser and the Node tools alike:
 * - `data:` URIs (the bytes are in the JSON itself), and
 * - paths relative to the model's own URL that stay inside the model's folder.
 * Anything else (another scheme such as http: or file:, an absolute path, `..` that climbs
 * out of the folder, an encoded path separator) is refused with a ModelError naming the
 * buffer or image and the uri, before anything is read.
 */
export type ResolvedUri =
  | { kind: 'data'; mimeType: string; bytes: Uint8Array }
  | { kind: 'url'; url: string };

/**
 * Resolves `uri` against `baseUrl` (the model's own URL: http(s):, file: or blob:, the folder is
 * everything up to its last '/'). `where` names the owner in errors ("buffer 1").
 */
export function resolveUri(uri: string, baseUrl: string | undefined, where: string): ResolvedUri {
  check(uri.length > 0, `${where}: uri is empty`);
  const shown = JSON.stringify(uri.length > 80 ? `${uri.slice(0, 80)}...` : uri);
  if (/^data:/i.test(uri)) return decodeDataUri(uri, where);
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(uri);
  check(!scheme, () => `${where}: uri ${shown} names a scheme (${scheme![1]}:); only data: URIs and paths relative to the model's folder are allowed`);
  check(!/%(2f|5c)/i.test(uri), `${where}: uri ${shown} encodes a path separator (%2F or %5C), which could leave the model's folder; refused`);
  check(baseUrl !== undefined,
    `${where}: uri ${shown} is relative, but the model was given as bytes without a baseUrl to resolve it against`);
  let base: URL;
  let resolved: URL;
  try {
    base = new URL(baseUrl);
    resolved = new URL(uri, base);
  } catch {
    throw new ModelError(`${where}: uri ${shown} cannot be resolved against the model's URL`);
  }
  const folder = new URL('.', base);
  check(resolved.protocol === folder.protocol && resolved.host === folder.host && resolved.pathname.startsWith(folder.pathname),
    `${where}: uri ${shown} leaves the model's folder (it resolves to ${resolved.pathname}); refused`);
  return { kind: 'url', url: resolved.href };
}

/** Thrown by a ResourceReader that refuses a URL (say, a link out of the model's folder): always fatal. */
export class ResourceRefused extends ModelError {}

/** Reads an external resource; any failure becomes a ModelError naming the owner and uri. */
export async function readExternal(url: string, where: string, uri: string, read: (url: string) => Promise<ArrayBuffer>): Promise<Uint8Array> {
  try {
    return new Uint8Array(await read(url));
  } catch (e) {
    const message = `${where}: could not read '${uri}' (${(e as Error)?.message ?? String(e)})`;
    throw e instanceof ResourceRefused ? new ResourceRefused(message) : new ModelError(message);
  }
}

/** Decodes a `data:[<mime>][;base64],<data>` URI. */
function decodeDataUri(uri: string, where: string): ResolvedUri {
  const comma = uri.indexOf(',');
  check(comma > 0, `${where}: its data: uri has no comma before the data`);
  const header = uri.slice(5, comma);
  const body = uri.slice(comma + 1);
  const mimeType = header.split(';')[0] || 'application/octet-stream';
  if (/;base64$/i.test(header)) {
    let text: string;
    try {
      text = atob(body);
    } catch {
      throw new ModelError(`${where}: its data: uri is not valid base64`);
    }
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return { kind: 'data', mimeType, bytes };
  }
  try {
    return { kind: 'data', mimeType, bytes: new TextEncoder().encode(decodeURIComponent(body)) };
  } catch {
    throw new ModelError(`${where}: its data: uri has a malformed percent-escape`);
  }
}
