#ifndef PNG_WRITER_H
#define PNG_WRITER_H

#include <stddef.h>
#include <stdio.h>

/// The sample layouts vbg_png_write accepts.
enum vbg_png_layout { vbg_png_gray = 0, vbg_png_rgba = 1, vbg_png_bgra = 2 };

/// Writes an 8-bit PNG of `width` x `height` pixels to `file` with one row filter for every row
/// (`filter`: a libpng PNG_FILTER_* value) and zlib `level`. `stride` is the bytes from one row to
/// the next. libpng's errors never leave this function (its longjmp stays in C): on failure it
/// returns 0 and puts libpng's message in `message` (at most `size` bytes, NUL-terminated).
int vbg_png_write(FILE *file, const unsigned char *pixels, unsigned width, unsigned height, size_t stride,
                  enum vbg_png_layout layout, int level, int filter, char *message, size_t size);

/// libpng's filter values, for Swift (the macros are not all importable).
extern const int vbg_png_filter_up;

#endif
