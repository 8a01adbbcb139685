#include "PNGWriter.h"

#include <png.h>
#include <setjmp.h>
#include <string.h>

const int vbg_png_filter_up = PNG_FILTER_UP;

struct failure {
    jmp_buf jump;
    char *message;
    size_t size;
};

static void on_error(png_structp png, png_const_charp text) {
    struct failure *failure = png_get_error_ptr(png);
    if (failure->size > 0) {
        strncpy(failure->message, text, failure->size - 1);
        failure->message[failure->size - 1] = 0;
    }
    longjmp(failure->jump, 1);
}

static void on_warning(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;
}

int vbg_png_write(FILE *file, const unsigned char *pixels, unsigned width, unsigned height, size_t stride,
                  enum vbg_png_layout layout, int level, int filter, char *message, size_t size) {
    struct failure failure = {.message = message, .size = size};
    if (size > 0) message[0] = 0;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &failure, on_error, on_warning);
    if (png == NULL) {
        if (size > 0) snprintf(message, size, "out of memory");
        return 0;
    }
    png_infop info = png_create_info_struct(png);
    // Everything libpng may longjmp from comes after this point; nothing here needs releasing but png/info.
    if (info == NULL || setjmp(failure.jump)) {
        if (info == NULL && size > 0) snprintf(message, size, "out of memory");
        png_destroy_write_struct(&png, info == NULL ? NULL : &info);
        return 0;
    }
    png_init_io(png, file);
    int colour = layout == vbg_png_gray ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB_ALPHA;
    png_set_IHDR(png, info, width, height, 8, colour, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, level);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, filter);
    png_write_info(png, info);
    if (layout == vbg_png_bgra) png_set_bgr(png);
    for (unsigned y = 0; y < height; y++) png_write_row(png, pixels + (size_t)y * stride);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return 1;
}
