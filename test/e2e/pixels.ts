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
