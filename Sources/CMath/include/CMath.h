#ifndef VBG_CMATH_H
#define VBG_CMATH_H

// The C library's math functions the Inference operators call (expf, tanhf, pow…), declared here
// instead of through <math.h> so that Inference needs neither Foundation nor the platform's C
// module (Glibc, Darwin): the same declarations serve a normal build, where they bind to libm
// (linked with -lm on Linux; part of libSystem on Apple platforms), and an Embedded Swift build
// for a target with no libc headers (aarch64-none-none-elf), where whatever libm the program is
// linked with provides them. The prototypes are C99's (ISO C 7.12), so they match the system's.
// Swift's own Float and Double methods (squareRoot, rounded, truncatingRemainder) need none of this.

#ifdef __cplusplus
extern "C" {
#endif

// Exponentials and logarithms.
float expf(float x);
double exp(double x);
float expm1f(float x);
float logf(float x);
double log(double x);
float log1pf(float x);

// Powers.
float powf(float x, float y);
double pow(double x, double y);

// Trigonometric and hyperbolic functions.
float sinf(float x);
double sin(double x);
float cosf(float x);
double cos(double x);
float tanf(float x);
float asinf(float x);
float acosf(float x);
float atanf(float x);
float sinhf(float x);
float coshf(float x);
float tanhf(float x);
double tanh(double x);
float asinhf(float x);
float acoshf(float x);
float atanhf(float x);

// The error function.
float erff(float x);
double erf(double x);

// Remainders and rounding.
float fmodf(float x, float y);
double fmod(double x, double y);
double round(double x);

#ifdef __cplusplus
}
#endif

#endif
