import { describe, expect, it } from 'vitest';
import { resolveUri } from '../../src/bake/uri';
import { expectModelError } from '../helpers/gltf-builder';

const FILE_BASE = 'file:///models/Fox/Fox.gltf';
const HTTP_BASE = 'https://example.com/models/Fox/Fox.gltf?v=2';

describe('resolveUri validity: only data: and paths inside the model folder', () => {
  const refused: { uri: string; message: RegExp }[] = [
    { uri: '../../../../etc/hostname', message: /^buffer 1: uri "\.\.\/\.\.\/\.\.\/\.\.\/etc\/hostname" leaves the model's folder \(it resolves to \/etc\/hostname\); refused$/ },
    { uri: '../Cesium/Cesium.bin', message: /leaves the model's folder \(it resolves to \/models\/Cesium\/Cesium\.bin\)/ },
    { uri: 'sub/../../x.bin', message: /leaves the model's folder/ },
    { uri: '%2e%2e/%2e%2e/etc/hostname', message: /leaves the model's folder/ },
    { uri: '..\\..\\etc\\hostname', message: /leaves the model's folder/ },
    { uri: '/etc/hostname', message: /leaves the model's folder/ },
    { uri: '//evil.example/x.bin', message: /leaves the model's folder/ },
    { uri: '..%2F..%2Fetc%2Fhostname', message: /encodes a path separator \(%2F or %5C\), which could leave the model's folder; refused/ },
    { uri: 'file:///etc/hostname', message: /^buffer 1: uri "file:\/\/\/etc\/hostname" names a scheme \(file:\); only data: URIs and paths relative to the model's folder are allowed$/ },
    { uri: 'http://example.com/Fox.bin', message: /names a scheme \(http:\)/ },
    { uri: 'javascript:alert(1)', message: /names a scheme \(javascript:\)/ },
    { uri: 'C:/models/Fox.bin', message: /names a scheme \(C:\)/ },
  ];
  it.each(refused)('refuses $uri', ({ uri, message }) => {
    expectModelError(() => resolveUri(uri, FILE_BASE, 'buffer 1'), message);
    expectModelError(() => resolveUri(uri, HTTP_BASE, 'buffer 1'), /refused|names a scheme/);
  });

  it('refuses an empty uri (it would name the folder itself)', () => {
    expectModelError(() => resolveUri('', FILE_BASE, 'image 2'), /^image 2: uri is empty$/);
  });

  it('refuses a relative uri when there is no baseUrl to resolve it against', () => {
    expectModelError(() => resolveUri('Fox.bin', undefined, 'image 0'),
      /^image 0: uri "Fox\.bin" is relative, but the model was given as bytes without a baseUrl to resolve it against$/);
  });

  it('names broken data: URIs', () => {
    expectModelError(() => resolveUri('data:application/octet-stream;base64', FILE_BASE, 'buffer 0'), /^buffer 0: its data: uri has no comma before the data$/);
    expectModelError(() => resolveUri('data:;base64,@@@', FILE_BASE, 'buffer 0'), /^buffer 0: its data: uri is not valid base64$/);
    expectModelError(() => resolveUri('data:,%E0%A4%A', FILE_BASE, 'buffer 0'), /^buffer 0: its data: uri has a malformed percent-escape$/);
  });
});

describe('resolveUri', () => {
  it('resolves paths inside the folder, subfolders and percent-escapes included', () => {
    expect(resolveUri('Fox.bin', FILE_BASE, 'b')).toEqual({ kind: 'url', url: 'file:///models/Fox/Fox.bin' });
    expect(resolveUri('textures/../Fox%20skin.png', FILE_BASE, 'b')).toEqual({ kind: 'url', url: 'file:///models/Fox/Fox%20skin.png' });
    expect(resolveUri('part 0.bin', HTTP_BASE, 'b')).toEqual({ kind: 'url', url: 'https://example.com/models/Fox/part%200.bin' });
  });

  it('decodes base64 and percent-encoded data: URIs with their MIME type', () => {
    expect(resolveUri('data:application/octet-stream;base64,AQID', undefined, 'b')).toEqual({ kind: 'data', mimeType: 'application/octet-stream', bytes: Uint8Array.of(1, 2, 3) });
    expect(resolveUri('data:image/png;base64,AQ==', undefined, 'b')).toMatchObject({ mimeType: 'image/png', bytes: Uint8Array.of(1) });
    expect(resolveUri('data:,a%20b', undefined, 'b')).toEqual({ kind: 'data', mimeType: 'application/octet-stream', bytes: new TextEncoder().encode('a b') });
  });
});
