// TargetFeatures is a header (include/TargetFeatures.h); a C target needs one source file.
#include "TargetFeatures.h"
typedef int vbg_target_features_unused;
