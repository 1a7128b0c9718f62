/**
 * The atlas's cells packed at one density (AtlasGrid): each view's cell a rectangle of texels, its
 * poses' cells side by side on shelves of the atlas, the densest density whose shelves fit the
 * texels given (a bisection).
 */

/** A packing of the views' cells: its density (texels a model unit), each view's cell size and each (pose, view) cell's corner (AtlasGrid's arrays), the shelves' tops and the atlas's size. */
export interface Packing {
  density: number;
  sizes: Uint16Array;
  corners: Uint16Array;
  shelves: number[];
  width: number;
  height: number;
}

/**
 * Packs `poses` cells of each view's size (`sizes`: width, height in texels, a pair a view) into
 * shelves `width` texels wide: the views in `order` (shelfOrder: taller first), each view's cells
 * left to right, on from the last shelf while they fit, then on new shelves of the view's height.
 * Writes the cells' corners (at pose x views + view) into `corners` and the shelves' tops into
 * `shelves` when given (without them the full shelves are counted, not walked); returns the
 * atlas's height, or Infinity where a cell is wider than `width`.
 */
function packShelves(sizes: Uint16Array, order: readonly number[], poses: number, width: number, corners?: Uint16Array, shelves?: number[]): number {
  const views = sizes.length / 2;
  let x = 0, top = 0, shelf = 0; // the current shelf's next free texel, its top and its height (0: none yet)
  for (const view of order) {
    const w = sizes[2 * view], h = sizes[2 * view + 1];
    if (w > width) return Infinity;
    for (let pose = 0; pose < poses;) {
      if (shelf === 0 || x + w > width) {
        if (!corners) {
          // The rest on new shelves of `per` cells: the last one's free texel is where the loop would leave it.
          const per = Math.floor(width / w), more = Math.ceil((poses - pose) / per);
          top += shelf + (more - 1) * h;
          shelf = h;
          x = (poses - pose - (more - 1) * per) * w;
          break;
        }
        top += shelf;
        shelf = h;
        x = 0;
        shelves?.push(top);
      }
      const n = Math.min(poses - pose, Math.floor((width - x) / w)); // cells on this shelf
      for (let k = 0; corners && k < n; k++) corners.set([x + k * w, top], 2 * ((pose + k) * views + view));
      x += n * w;
      pose += n;
    }
  }
  shelves?.push(top + shelf);
  return top + shelf;
}

/** The views in packShelves's order: taller cells first, ties by view. */
function shelfOrder(sizes: Uint16Array): number[] {
  return Array.from({ length: sizes.length / 2 }, (_, v) => v).sort((a, b) => sizes[2 * b + 1] - sizes[2 * a + 1] || a - b);
}

/** Each view's cell size at `density` texels a model unit (its rectangle's, rounded; at least 1). */
function cellSizes(rectangles: readonly [number, number][], density: number): Uint16Array {
  return Uint16Array.from(rectangles.flatMap(([w, h]) => [Math.max(1, Math.round(w * density)), Math.max(1, Math.round(h * density))]));
}

/**
 * The densest packing (packShelves) of `poses` cells a view of the views' `rectangles` (model
 * units) in at most `texels` texels, at most `largest` texels a side: a bisection on the
 * density (24 halvings), at each the atlas width (a multiple of 64: a row of RGBA8 texels a
 * multiple of 256 bytes, as a copy into a buffer needs) that packs into the fewest
 * texels. Undefined where not even the sparsest fits (more cells than `largest` squared holds).
 */
export function densestPacking(rectangles: readonly [number, number][], poses: number, texels: number, largest: number): Packing | undefined {
  const area = rectangles.reduce((sum, [w, h]) => sum + w * h, 0);
  const fewest = (density: number): [number, number] | undefined => {
    const sizes = cellSizes(rectangles, density);
    const order = shelfOrder(sizes);
    let best: [number, number] | undefined;
    for (let width = 64; width <= largest; width += 64) {
      const height = packShelves(sizes, order, poses, width);
      if (height <= largest && (!best || width * height < best[0] * best[1])) best = [width, height];
    }
    return best && best[0] * best[1] <= texels ? best : undefined;
  };
  // Every view's rectangle at the density that gives them `texels` in all: no packing is denser (but for rounding).
  let high = 1.05 * Math.sqrt(texels / (poses * area));
  let low = 0;
  for (let i = 0; i < 24; i++) {
    const middle = (low + high) / 2;
    if (fewest(middle)) low = middle;
    else high = middle;
  }
  const fit = low > 0 ? fewest(low) : undefined;
  if (!fit) return undefined;
  const sizes = cellSizes(rectangles, low);
  const corners = new Uint16Array(2 * poses * rectangles.length);
  const shelves: number[] = [];
  const height = packShelves(sizes, shelfOrder(sizes), poses, fit[0], corners, shelves);
  if (height !== fit[1]) throw new Error(`densestPacking: the shelves walked are ${height} texels tall, counted ${fit[1]}`);
  return { density: low, sizes, corners, shelves, width: fit[0], height: fit[1] };
}
