/**
 * Colours and fixed rendering choices shared by the demo and its end-to-end test.
 * Colours are display (sRGB-encoded) values in [0, 1]: the canvas is configured with a
 * non-sRGB format, so they reach the screen unchanged.
 */
export const SKY_COLOR = { r: 0.70, g: 0.77, b: 0.84, a: 1 } as const;
/** The sky colour as 8-bit RGB, what a screenshot's background pixels hold. */
export const SKY_RGB8 = [179, 196, 214] as const;
export const GROUND_COLOR = [0.56, 0.60, 0.58, 1] as const;
export const GRID_LINE_COLOR = [0.36, 0.40, 0.40, 1] as const;
/** Colour of the rings a scene draws on the ground (the steering scene's pillars): light grey, and its opacity. */
export const RING_COLOR = [0.8, 0.8, 0.85, 0.9] as const;

/** MSAA samples of the main render pass. */
export const SAMPLE_COUNT = 4;
export const DEPTH_FORMAT: GPUTextureFormat = 'depth32float';
/** Canvas pixels per CSS pixel never exceed this (keeps 4K laptops from rendering 3x). */
export const MAX_DEVICE_PIXEL_RATIO = 2;
