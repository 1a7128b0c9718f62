/**
 * Pixel checks on screenshots, decoded with pngjs. Screenshots rather than reading the canvas
 * back in the page: a WebGPU canvas's texture is gone once presented, so a 2D copy taken
 * outside the frame callback depends on browser internals, while page.screenshot() is exactly
 * what a person sees, and the same PNG is saved for them to look at.
 */
import { PNG } from 'pngjs';
import type { Rect } from './harness';

export interface Image { width: number; height: number; data: Buffer }

export function decode(png: Buffer): Image {
  const image = PNG.sync.read(png);
  return { width: image.width, height: image.height, data: image.data };
}

function inside(x: number, y: number, rects: Rect[]): boolean {
  return rects.some((r) => x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height);
}

/** Share of pixels (outside `skip`) whose colour differs from `rgb` by more than `tolerance`. */
export function shareUnlike(image: Image, rgb: readonly number[], skip: Rect[], tolerance = 12): number {
  let counted = 0;
  let different = 0;
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      if (inside(x, y, skip)) continue;
      const o = (y * image.width + x) * 4;
      counted++;
      const d = Math.max(Math.abs(image.data[o] - rgb[0]), Math.abs(image.data[o + 1] - rgb[1]), Math.abs(image.data[o + 2] - rgb[2]));
      if (d > tolerance) different++;
    }
  }
  return different / Math.max(1, counted);
}

/** Share of pixels (outside `skip`) that differ between two same-sized images. */
export function shareChanged(a: Image, b: Image, skip: Rect[], tolerance = 16): number {
  if (a.width !== b.width || a.height !== b.height) throw new Error(`image sizes differ: ${a.width}x${a.height} vs ${b.width}x${b.height}`);
  let counted = 0;
  let changed = 0;
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < a.width; x++) {
      if (inside(x, y, skip)) continue;
      const o = (y * a.width + x) * 4;
      counted++;
      const d = Math.max(Math.abs(a.data[o] - b.data[o]), Math.abs(a.data[o + 1] - b.data[o + 1]), Math.abs(a.data[o + 2] - b.data[o + 2]));
      if (d > tolerance) changed++;
    }
  }
  return changed / Math.max(1, counted);
}

/** Largest difference over R, G and B between the pixels at byte offset `o` of two images. */
function rgbDistance(a: Image, b: Image, o: number): number {
  return Math.max(Math.abs(a.data[o] - b.data[o]), Math.abs(a.data[o + 1] - b.data[o + 1]), Math.abs(a.data[o + 2] - b.data[o + 2]));
}

/** A pixel mask (1 = set), row-major, of an image's size. */
export interface Mask { width: number; height: number; bits: Uint8Array }

/** The pixels whose colour differs between two same-sized images by more than `tolerance`. */
export function differenceMask(a: Image, b: Image, tolerance = 16): Mask {
  if (a.width !== b.width || a.height !== b.height) throw new Error(`image sizes differ: ${a.width}x${a.height} vs ${b.width}x${b.height}`);
  const bits = new Uint8Array(a.width * a.height);
  for (let p = 0; p < bits.length; p++) bits[p] = rgbDistance(a, b, p * 4) > tolerance ? 1 : 0;
  return { width: a.width, height: a.height, bits };
}

/** The mask shrunk by `radius` pixels: set only where every pixel within that square is set (drops anti-aliased edges). */
export function erode(mask: Mask, radius = 1): Mask {
  const { width, height } = mask;
  const bits = new Uint8Array(width * height);
  for (let y = radius; y < height - radius; y++) {
    for (let x = radius; x < width - radius; x++) {
      let all = 1;
      for (let dy = -radius; dy <= radius && all; dy++) for (let dx = -radius; dx <= radius && all; dx++) all = mask.bits[(y + dy) * width + x + dx];
      bits[y * width + x] = all;
    }
  }
  return { width, height, bits };
}

/** Pixels set in a mask. */
export function maskCount(mask: Mask): number {
  let n = 0;
  for (const bit of mask.bits) n += bit;
  return n;
}

/** Share of the mask's pixels whose colour differs between two images by more than `tolerance`. */
export function shareChangedIn(a: Image, b: Image, mask: Mask, tolerance = 16): number {
  let changed = 0;
  for (let p = 0; p < mask.bits.length; p++) if (mask.bits[p] && rgbDistance(a, b, p * 4) > tolerance) changed++;
  return changed / Math.max(1, maskCount(mask));
}

/** The pixels (outside `skip`) whose colour differs from `rgb` by more than `tolerance`: on a plain background, what is drawn over it. */
export function unlikeMask(image: Image, rgb: readonly number[], skip: Rect[], tolerance = 12): Mask {
  const { width, height } = image;
  const bits = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (inside(x, y, skip)) continue;
      const o = (y * width + x) * 4;
      bits[y * width + x] = Math.max(Math.abs(image.data[o] - rgb[0]), Math.abs(image.data[o + 1] - rgb[1]), Math.abs(image.data[o + 2] - rgb[2])) > tolerance ? 1 : 0;
    }
  }
  return { width, height, bits };
}

/** The union of two same-sized masks. */
export function unionMask(a: Mask, b: Mask): Mask {
  return { width: a.width, height: a.height, bits: a.bits.map((bit, p) => bit | b.bits[p]) };
}

/** Mean Rec. 709 luma of the screenshot's (sRGB-encoded) values over a mask's pixels, [0, 255]; 0 for an empty mask. */
export function meanLuminance(image: Image, mask: Mask): number {
  let sum = 0;
  let n = 0;
  for (let p = 0; p < mask.bits.length; p++) {
    if (!mask.bits[p]) continue;
    const o = p * 4;
    sum += 0.2126 * image.data[o] + 0.7152 * image.data[o + 1] + 0.0722 * image.data[o + 2];
    n++;
  }
  return n === 0 ? 0 : sum / n;
}

/**
 * Column ranges [from, to) of the pixels (outside `skip`) that differ between two same-sized
 * images by more than `tolerance`, split where `gap` or more columns in a row have none: on a
 * still view, the blocks of characters that moved, left to right.
 */
export function changedColumnRanges(a: Image, b: Image, skip: Rect[], gap: number, tolerance = 16): { from: number; to: number }[] {
  const ranges: { from: number; to: number }[] = [];
  let empty = gap;
  for (let x = 0; x < a.width; x++) {
    let changed = false;
    for (let y = 0; y < a.height && !changed; y++) changed = !inside(x, y, skip) && rgbDistance(a, b, (y * a.width + x) * 4) > tolerance;
    if (!changed) {
      empty++;
      continue;
    }
    if (empty >= gap) ranges.push({ from: x, to: x + 1 });
    else ranges[ranges.length - 1].to = x + 1;
    empty = 0;
  }
  return ranges;
}

/** Mean absolute difference of R, G and B (0-255, averaged over channels) between two images of one size, over `mask` or the whole image. */
export function meanDifference(a: Image, b: Image, mask?: Mask): number {
  let sum = 0, n = 0;
  for (let p = 0; p < a.width * a.height; p++) {
    if (mask && !mask.bits[p]) continue;
    for (let c = 0; c < 3; c++) sum += Math.abs(a.data[p * 4 + c] - b.data[p * 4 + c]);
    n++;
  }
  return n === 0 ? 0 : sum / (3 * n);
}
