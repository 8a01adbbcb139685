#ifndef BUILTIN_MODEL_DATA_H
#define BUILTIN_MODEL_DATA_H

// The built-in ONNX files' bytes, linked into the binary (BuiltinModelData.S). Read-only, valid for
// the life of the process.

extern const unsigned char vbg_builtin_model_general[];
extern const unsigned char vbg_builtin_model_general_end[];
extern const unsigned char vbg_builtin_model_landscape[];
extern const unsigned char vbg_builtin_model_landscape_end[];

static inline const unsigned char *vbg_builtin_general_bytes(void) { return vbg_builtin_model_general; }
static inline long vbg_builtin_general_count(void) {
    return (long)(vbg_builtin_model_general_end - vbg_builtin_model_general);
}
static inline const unsigned char *vbg_builtin_landscape_bytes(void) { return vbg_builtin_model_landscape; }
static inline long vbg_builtin_landscape_count(void) {
    return (long)(vbg_builtin_model_landscape_end - vbg_builtin_model_landscape);
}

#endif
