import { defineConfig } from 'vitest/config';

// SwiftShader's Vulkan driver from Debian's chromium package gives WebGPU in Node without a GPU
// (see README, "Tests"). Set VK_ICD_FILENAMES yourself to test on another Vulkan driver.
const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

export default defineConfig({
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
  test: {
    include: ['test/**/*.test.ts'],
    env: { VK_ICD_FILENAMES: process.env.VK_ICD_FILENAMES ?? SWIFTSHADER_ICD },
    // The JSON report lets .ci/run print one summary line and refuse skipped tests under CI.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
