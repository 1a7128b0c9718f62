import { describe, expect, it } from 'vitest';
import { compactJoints, streamsKey, vertexConstants, vertexLayouts, type VertexStreams } from '../../src/runtime/mesh-buffers';

const FOX: VertexStreams = { influences: 4, normals: false, uvSets: 1, tangents: false, colors: false, jointBytes: 1 };

/** A layout's attributes as an array (GPUVertexBufferLayout types them as an iterable). */
const attributes = (layout: GPUVertexBufferLayout) => [...layout.attributes];

/** Bytes a vertex reads from its own streams (arrayStride 0: a shared stand-in, not a stream). */
const bytesPerVertex = (streams: VertexStreams) => vertexLayouts(streams).reduce((n, l) => n + l.arrayStride, 0);

describe('vertex streams: compact, and none for an attribute the primitive lacks', () => {
  it('the Fox (no NORMAL, COLOR_0 or TANGENT; 24 joints): 40 bytes a vertex (72 before), stand-ins read with arrayStride 0', () => {
    const layouts = vertexLayouts(FOX);
    expect(layouts.map((l) => l.arrayStride)).toEqual([12, 0, 8, 4, 16, 0, 0]);
    expect(attributes(layouts[3])[0].format).toBe('uint8x4');
    expect(bytesPerVertex(FOX)).toBe(40);
  });

  it('every attribute a primitive has gets its stream, at the format the shader locations read', () => {
    const full: VertexStreams = { influences: 8, normals: true, uvSets: 2, tangents: true, colors: true, jointBytes: 2 };
    const layouts = vertexLayouts(full);
    expect(layouts.map((l) => l.arrayStride)).toEqual([12, 12, 16, 16, 32, 16, 16]);
    expect(attributes(layouts[3]).map((a) => [a.shaderLocation, a.format, a.offset])).toEqual([[3, 'uint16x4', 0], [5, 'uint16x4', 8]]);
    expect(attributes(vertexLayouts({ ...full, jointBytes: 1 })[3]).map((a) => [a.format, a.offset])).toEqual([['uint8x4', 0], ['uint8x4', 4]]);
    expect(vertexLayouts({ ...full, jointBytes: 1 })[3].arrayStride).toBe(8);
  });

  it('joints as uint8 only when every slot fits', () => {
    expect(compactJoints(Uint16Array.of(0, 3, 255, 7))).toBeInstanceOf(Uint8Array);
    expect(Array.from(compactJoints(Uint16Array.of(0, 3, 255, 7)))).toEqual([0, 3, 255, 7]);
    expect(compactJoints(Uint16Array.of(0, 3, 256, 7))).toBeInstanceOf(Uint16Array);
  });

  it('the pipeline constants say what the vertex stage passes on, and the key tells apart every layout and constant', () => {
    expect(vertexConstants(FOX)).toEqual({ NORMALS: 0, TANGENTS: 0, COLORS: 0, UV1: 0 });
    expect(vertexConstants({ ...FOX, normals: true, tangents: true, colors: true, uvSets: 2 })).toEqual({ NORMALS: 1, TANGENTS: 1, COLORS: 1, UV1: 1 });
    const variants: VertexStreams[] = [FOX, { ...FOX, influences: 8 }, { ...FOX, normals: true }, { ...FOX, uvSets: 2 }, { ...FOX, tangents: true }, { ...FOX, colors: true }, { ...FOX, jointBytes: 2 }];
    expect(new Set(variants.map(streamsKey)).size).toBe(variants.length);
  });
});
