import { defineConfig } from 'vitest/config';

// SwiftShader's Vulkan driver from Debian's chromium package gives WebGPU in Node without a GPU
// (see README, "Tests"). A machine with a real GPU driver finds it without this.
const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

export default defineConfig({
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
  test: {
    include: ['test/**/*.test.ts'],
    env: { VK_ICD_FILENAMES: process.env.VK_ICD_FILENAMES ?? SWIFTSHADER_ICD },
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
