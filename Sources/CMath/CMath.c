// CMath is a header (include/CMath.h); a C target needs one source file.
#include "CMath.h"
typedef int vbg_cmath_unused;
