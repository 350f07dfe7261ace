#pragma once
// TRIDENT_UNROLL before a loop of constant trip count asks the device compiler to unroll it
// (kernels that keep a value per iteration in registers need it: the kNN screens' lists,
// diffusion's per-step rows); TRIDENT_NO_UNROLL asks it not to (unrolled copies that would
// only raise a kernel's registers). Only the device pass of CUDA or HIP sees a pragma: the
// host compilers' own passes get nothing to warn about, and unrolling changes no result.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define TRIDENT_UNROLL _Pragma("unroll")
#define TRIDENT_NO_UNROLL _Pragma("unroll 1")
#else
#define TRIDENT_UNROLL
#define TRIDENT_NO_UNROLL
#endif
