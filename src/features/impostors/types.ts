/** Options of CrowdImpostors (docs/impostors.md); every field optional, each checked by name. */
export interface ImpostorOptions {
  /** Frames baked per clip, evenly over its cycle: an integer in [2, 64] (default 16; 16 to 32 look smooth). */
  frames?: number;
  /**
   * The clips to bake (names or indices of the character's clips, each once; default: every
   * clip). An instance showing another clip (clip A under a blend of 1, clip B over 0) is drawn as
   * a mesh at any distance. A crowd that plays a few of many clips gets that many times the texels
   * a clip in the same budget, and a box without the others' reach (impostorBox).
   */
  clips?: readonly (string | number)[];
  /** View directions around the character (azimuth steps over 360 degrees): an integer in [3, 32] (default 8). */
  azimuths?: number;
  /** View directions from the horizon up (elevation rows): an integer in [1, 8] (default 3: 0, 37.5 and 75 degrees). */
  elevations?: number;
  /** Elevation of the highest row, degrees in [0, 89] (default 75): a camera higher up sees that row. */
  maxElevation?: number;
  /**
   * The atlas's size as square cells of this many texels a side at 9 bytes a texel: a multiple of
   * 16 in [16, 256] (default 80). Each view's cell is the animation box's projection in its view
   * at one density (texels a model unit) for every view, the densest whose packing takes at most
   * those bytes (7 bytes a texel where the character has one roughness and metalness: 9/7 the
   * texels). Made smaller, to the largest whole side from 16 whose bytes fit, while those bytes are over `budgetBytes`.
   */
  cellSize?: number;
  /** Most bytes the atlas may hold (9 bytes a texel: RGBA8 albedo, RGBA8 surface, R8 depth; 7 with an RG8 surface where the character has one roughness and metalness): an integer >= 1 MiB (default 64 MiB, DEFAULT_IMPOSTOR_BUDGET). */
  budgetBytes?: number;
  /**
   * An instance is drawn as an impostor once the sphere around what a cell frames (the atlas's box,
   * or a pose's frame: ImpostorAtlasInfo.frameHalf) spans at most this many pixels on the crowd's viewport (Crowd.setCamera's viewportHeight): a number in [1, 4096] (default:
   * half the cell size, two atlas texels a pixel at the switch: measured, at one a pixel the
   * impostor's outline came out half a pixel wider than the mesh's).
   */
  switchPixels?: number;
  /**
   * The band before the switch where an instance is drawn both as its mesh and as its impostor,
   * each screen-door faded by how far into the band it is (4 x 4 ordered dither, complementary:
   * each pixel is drawn by one), so nothing pops: a fraction of the switch distance in [0, 0.9]
   * (default 0.25, DEFAULT_IMPOSTOR_BAND: from 4/3 x switchPixels down to it). 0: a hard cut. The
   * band's meshes draw the mesh LOD level at the switch (the one the atlas is baked from).
   */
  band?: number;
  /**
   * An impostor is drawn as a dot once its bounding sphere spans at most this many pixels on the
   * crowd's viewport: one point (a vertex), its colour and lighting the average of its view cell,
   * the pixel (or samples) it covers in proportion to the area the character covers there, dithered
   * per instance. A quad at a pixel or two costs its vertices and triangles whatever it shows (a
   * million in view: 4 vertex runs and 2 triangles each); a point costs one vertex. A number of
   * pixels in [0, 4] under switchPixels (default 2, or half switchPixels where that is less); 0: no dots.
   */
  dotPixels?: number;
  /**
   * Looks (distinct CrowdAppearance (variant, parts) pairs, each baked as one layer of the atlas)
   * the atlas is sized for: an integer in [1, 256] (default 1). `cellSize` is made smaller until this
   * many layers fit in `budgetBytes`; as many more as fit at that cell size are baked too when in
   * use. Past them, the most used looks are baked and the rest drawn as the most used one
   * (CrowdImpostors.stale and .looks say so).
   */
  looks?: number;
  /**
   * What a layer stack shows past the switch where it has layers the atlas cannot show (a masked
   * override layer or an additive layer that weighs anything: a wave of the arm, a nod over the
   * walk): 'mesh' (the default) keeps such an instance a mesh at any distance, exactly as posed;
   * 'leave-out' draws it past the switch as the impostor of the stack without them (the rest of
   * it, as for any stack: its two heaviest clips), as engines drop partial layers at a distance.
   * In the band the mesh with them and the impostor without dissolve into one another.
   * CrowdImpostors.partialLayers changes it at run time.
   */
  partialLayers?: PartialLayers;
}

/** ImpostorOptions.partialLayers: 'mesh' or 'leave-out'. */
export type PartialLayers = 'mesh' | 'leave-out';

/** What the atlas holds, once made (CrowdImpostors.atlas). */
export interface ImpostorAtlasInfo {
  /** Frames per clip. */
  readonly frames: number;
  /** View directions around the character. */
  readonly azimuths: number;
  /** View directions from the horizon up. */
  readonly elevations: number;
  /** Texels per side of the square cell whose texels each view gets on average (after the budget; the views' rectangles are packed at one density). */
  readonly cellSize: number;
  /** Texels a model unit in every view. */
  readonly density: number;
  /**
   * The model-space box of the character as baked (min x, y, z, max x, y, z; model units), every
   * clip at every baked frame (impostorBox). The quad spans its projection; the cells frame it, or
   * each pose about its own centre (`frameHalf`), and the switch (`switchPixels`) measures the
   * diameter of the sphere around what they frame.
   */
  readonly box: readonly number[];
  /**
   * The half extents (x, y, z; model units) each cell frames about its pose's centre: each axis's
   * largest over the baked poses' own boxes where that frames at least 1.5x less area over the
   * views than `box` (a clip whose root travels: the Walker's 19 clips, the Mannequin's walk and
   * run), else `box`'s own half extents (each cell frames `box`).
   */
  readonly frameHalf: readonly number[];
  /** The atlas's width in texels (three textures of this size, a layer a look). */
  readonly width: number;
  /** The atlas's height in texels. */
  readonly height: number;
  /** Bytes of one layer (one look) of the three textures. */
  readonly lookBytes: number;
  /** Most layers (looks) the budget holds at this cell size. */
  readonly looks: number;
  /** Layers baked now (0 before the bake). */
  readonly layers: number;
  /** Bytes of the three textures: lookBytes x layers once baked (counted in Crowd.gpuBytes), one layer's before. */
  readonly bytes: number;
}
