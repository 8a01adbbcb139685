#pragma once
#include <png.h>

// Composite format macros the Swift importer cannot see, re-exported as constants.
static const png_uint_32 clibpng_format_gray = PNG_FORMAT_GRAY;
static const png_uint_32 clibpng_format_rgba = PNG_FORMAT_RGBA;
static const png_uint_32 clibpng_format_rgb = PNG_FORMAT_RGB;
static const png_uint_32 clibpng_image_version = PNG_IMAGE_VERSION;
