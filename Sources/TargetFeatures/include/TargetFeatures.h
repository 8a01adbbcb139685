#ifndef TARGET_FEATURES_H
#define TARGET_FEATURES_H

// The instruction-set features of the compile target, as the compiler that imports this header
// sees them. Swift code reads these constants (1 or 0) to pick its fast paths: a Swift module
// compiled with `-Xcc -march=x86-64-v3` (from this package's manifest, or from a top-level
// `swift build -Xswiftc -Xcc -Xswiftc -march=x86-64-v3` in an app that depends on the package by
// version) imports this header with the same target and gets FMA = 1. The values are constants,
// so the optimiser removes the branch not taken.

#if defined(__AVX__)
#define VBG_TARGET_AVX 1
#else
#define VBG_TARGET_AVX 0
#endif

#if defined(__AVX2__)
#define VBG_TARGET_AVX2 1
#else
#define VBG_TARGET_AVX2 0
#endif

// Fused multiply-add: x86's FMA3, or any AArch64 target (NEON always has it).
#if defined(__FMA__) || defined(__aarch64__) || defined(__arm64__)
#define VBG_TARGET_FMA 1
#else
#define VBG_TARGET_FMA 0
#endif

#if defined(__F16C__)
#define VBG_TARGET_F16C 1
#else
#define VBG_TARGET_F16C 0
#endif

#if defined(__BMI2__)
#define VBG_TARGET_BMI2 1
#else
#define VBG_TARGET_BMI2 0
#endif

#if defined(__AVX512F__)
#define VBG_TARGET_AVX512F 1
#else
#define VBG_TARGET_AVX512F 0
#endif

#if defined(__AVX512BW__)
#define VBG_TARGET_AVX512BW 1
#else
#define VBG_TARGET_AVX512BW 0
#endif

#if defined(__AVX512DQ__)
#define VBG_TARGET_AVX512DQ 1
#else
#define VBG_TARGET_AVX512DQ 0
#endif

#if defined(__AVX512VL__)
#define VBG_TARGET_AVX512VL 1
#else
#define VBG_TARGET_AVX512VL 0
#endif

#if defined(__AVX512CD__)
#define VBG_TARGET_AVX512CD 1
#else
#define VBG_TARGET_AVX512CD 0
#endif

// AVX512-VNNI (`vpdpwssd`, `vpdpbusd`): the quantized product's pair dot product (IntegerKernels.h).
#if defined(__AVX512VNNI__)
#define VBG_TARGET_AVX512VNNI 1
#else
#define VBG_TARGET_AVX512VNNI 0
#endif

// AVX512-VBMI (`vpermi2b`): the byte MaxPool of narrow planes (IntegerKernels.h, Kernels/ByteMaxPool.swift).
#if defined(__AVX512VBMI__)
#define VBG_TARGET_AVX512VBMI 1
#else
#define VBG_TARGET_AVX512VBMI 0
#endif

#include "IntegerKernels.h"
#include "VectorMemory.h"
#include "Transpose16.h"
#include "FastMath.h"

#endif
