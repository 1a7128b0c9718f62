import { describe, expect, it } from 'vitest';
import { compactJoints, streamsKey, vertexConstants, vertexLayouts, type VertexStreams } from '../../src/runtime/mesh-buffers';

const FOX: VertexStreams = { influences: 4, normals: false, uvSets: 1, tangents: false, colors: false, jointBytes: 1 };

/** A layout's attributes as an array (GPUVertexBufferLayout types them as an iterable). */
const attributes = (layout: GPUVertexBufferLayout) => [...layout.attributes];

/** Bytes a vertex reads from its own streams (arrayStride 0: a shared stand-in, not a stream). */
const bytesPerVertex = (streams: VertexStreams) => vertexLayouts(streams).reduce((n, l) => n + l.arrayStride, 0);

describe('vertex streams: compact, and none for an attribute the primitive lacks', () => {
  it('the Fox (no NORMAL, COLOR_0 or TANGENT; 24 joints): 40 bytes a vertex (72 before) in two streams, the rest from the stand-in with arrayStride 0', () => {
    const layouts = vertexLayouts(FOX);
    expect(layouts.map((l) => l.arrayStride)).toEqual([32, 8, 0]);
    expect(layouts.map((l) => attributes(l).map((a) => [a.shaderLocation, a.format, a.offset]))).toEqual([
      [[0, 'float32x3', 0], [3, 'uint8x4', 12], [4, 'float32x4', 16]],
      [[2, 'float32x2', 0]],
      [[1, 'float32x3', 0], [7, 'float32x4', 16], [8, 'float32x4', 0]],
    ]);
    expect(bytesPerVertex(FOX)).toBe(40);
  });

  it('every attribute a primitive has gets its place in a stream, at the format the shader locations read; every location 0..8 is fed once', () => {
    const full: VertexStreams = { influences: 8, normals: true, uvSets: 2, tangents: true, colors: true, jointBytes: 2 };
    const layouts = vertexLayouts(full);
    expect(layouts.map((l) => l.arrayStride)).toEqual([12 + 16 + 32, 12 + 16 + 16 + 16, 0]);
    expect(attributes(layouts[0]).map((a) => [a.shaderLocation, a.format, a.offset])).toEqual([[0, 'float32x3', 0], [3, 'uint16x4', 12], [5, 'uint16x4', 20], [4, 'float32x4', 28], [6, 'float32x4', 44]]);
    expect(attributes(layouts[1]).map((a) => [a.shaderLocation, a.format, a.offset])).toEqual([[1, 'float32x3', 0], [2, 'float32x4', 12], [7, 'float32x4', 28], [8, 'float32x4', 44]]);
    expect(attributes(layouts[2])).toEqual([]);
    expect(attributes(vertexLayouts({ ...full, jointBytes: 1 })[0]).map((a) => [a.format, a.offset])).toEqual([['float32x3', 0], ['uint8x4', 12], ['uint8x4', 16], ['float32x4', 20], ['float32x4', 36]]);
    for (const streams of [FOX, full, { ...FOX, influences: 8 as const, colors: true }]) {
      const locations = vertexLayouts(streams).flatMap((l) => attributes(l).map((a) => a.shaderLocation)).sort((a, b) => a - b);
      expect(locations).toEqual(streams.influences === 8 ? [0, 1, 2, 3, 4, 5, 6, 7, 8] : [0, 1, 2, 3, 4, 7, 8]);
    }
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
