#version 300 es
// Environment prefilter on WebGL 2, fragment stage (src/webgl2/gl-environment-map.ts): the port
// of shaders/environment.wgsl's `fragment` (the same GGX filtered importance sampling, the same
// samples): one layer of the prefiltered equirectangular environment, radiance x intensity,
// roughness k / (layers - 1). GLEnvironmentMap puts PI and SAMPLES (ENVIRONMENT_SAMPLES) as
// #defines right after the #version line.

precision highp float;
precision highp int;

uniform sampler2D source;
// This layer's roughness in [0, 1]; the intensity scaling the source (three's environmentIntensity);
// the source's mip count; the target's width in texels; the source's level-0 size in texels.
uniform float roughness;
uniform float intensity;
uniform float sourceLevels;
uniform float targetWidth;
uniform vec2 sourceSize;

in vec2 uv;
out vec4 fragColor;

// The unit direction at texture coordinate uv (y down) of an equirectangular map.
vec3 directionOf(vec2 t) {
  float phi = (t.x - 0.5) * 2.0 * PI;
  float theta = (0.5 - t.y) * PI;
  return vec3(cos(theta) * cos(phi), sin(theta), cos(theta) * sin(phi));
}

// The texture coordinate (y down) of unit direction d: three.js's equirectUv, flipped.
vec2 uvOf(vec3 d) {
  return vec2(atan(d.z, d.x) / (2.0 * PI) + 0.5, 0.5 - asin(clamp(d.y, -1.0, 1.0)) / PI);
}

float radicalInverse(uint i) {
  uint b = i;
  b = (b << 16u) | (b >> 16u);
  b = ((b & 0x55555555u) << 1u) | ((b & 0xAAAAAAAAu) >> 1u);
  b = ((b & 0x33333333u) << 2u) | ((b & 0xCCCCCCCCu) >> 2u);
  b = ((b & 0x0F0F0F0Fu) << 4u) | ((b & 0xF0F0F0F0u) >> 4u);
  b = ((b & 0x00FF00FFu) << 8u) | ((b & 0xFF00FF00u) >> 8u);
  return float(b) * 2.3283064365386963e-10;
}

void main() {
  vec3 n = directionOf(uv);
  // Texel footprint of the source at level 0 (solid angle, steradians; the equator's, an over-estimate elsewhere).
  float texelAngle = 4.0 * PI / (sourceSize.x * sourceSize.y);
  if (roughness == 0.0) {
    // Resampled: read the level whose texels are no smaller than the target's.
    float level = max(log2(sourceSize.x / targetWidth), 0.0);
    fragColor = vec4(textureLod(source, uvOf(n), level).rgb * intensity, 1.0);
    return;
  }
  float alpha = roughness * roughness;
  float a2 = alpha * alpha;
  vec3 up = abs(n.y) < 0.999 ? vec3(0.0, 1.0, 0.0) : vec3(1.0, 0.0, 0.0);
  vec3 tx = normalize(cross(up, n));
  vec3 ty = cross(n, tx);
  vec3 sum = vec3(0.0);
  float weight = 0.0;
  for (uint i = 0u; i < SAMPLES; i++) {
    vec2 xi = vec2(float(i) / float(SAMPLES), radicalInverse(i));
    float phi = 2.0 * PI * xi.x;
    float cosH = sqrt((1.0 - xi.y) / (1.0 + (a2 - 1.0) * xi.y));
    float sinH = sqrt(1.0 - cosH * cosH);
    vec3 h = normalize(tx * (sinH * cos(phi)) + ty * (sinH * sin(phi)) + n * cosH);
    vec3 l = 2.0 * dot(n, h) * h - n;
    float dotNL = dot(n, l);
    if (dotNL > 0.0) {
      // GGX D; with N = V the sample's pdf over L is D / 4.
      float t = cosH * cosH * (a2 - 1.0) + 1.0;
      float d = a2 / (PI * t * t);
      float sampleAngle = 4.0 / (float(SAMPLES) * d);
      float level = clamp(0.5 * log2(sampleAngle / texelAngle) + 1.0, 0.0, sourceLevels - 1.0);
      sum += textureLod(source, uvOf(l), level).rgb * dotNL;
      weight += dotNL;
    }
  }
  fragColor = vec4(sum / weight * intensity, 1.0);
}
