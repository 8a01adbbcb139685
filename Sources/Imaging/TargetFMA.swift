import TargetFeatures

/// Whether the compile target has fused multiply-add (x86 FMA3, every AArch64): a constant of this
/// module's compile target (TargetFeatures), so each use folds to one side.
@inline(__always)
var targetHasFMA: Bool { VBG_TARGET_FMA != 0 }
