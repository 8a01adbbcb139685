// The two built-in ONNX files, linked into the binary as read-only data, so a program using the
// SDK or `vbg` needs no file next to it. The assembler finds the files through the target's
// header search path (this directory). Each model is a start and an end symbol; its size is the
// difference (include/BuiltinModelData.h). One statement a line: `;` is a comment on some targets.

#if defined(__APPLE__)
#define SYMBOL(name) _##name
#else
#define SYMBOL(name) name
#endif

#if defined(__APPLE__)
    .section __TEXT,__const
#else
    .section .rodata
#endif

    .globl SYMBOL(vbg_builtin_model_general)
    .globl SYMBOL(vbg_builtin_model_general_end)
    .balign 64
SYMBOL(vbg_builtin_model_general):
    .incbin "selfie_segmentation.onnx"
SYMBOL(vbg_builtin_model_general_end):
    .byte 0

    .globl SYMBOL(vbg_builtin_model_landscape)
    .globl SYMBOL(vbg_builtin_model_landscape_end)
    .balign 64
SYMBOL(vbg_builtin_model_landscape):
    .incbin "selfie_segmentation_landscape.onnx"
SYMBOL(vbg_builtin_model_landscape_end):
    .byte 0

#if defined(__ELF__)
    .section .note.GNU-stack,"",%progbits
#endif
