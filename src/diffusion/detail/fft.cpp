#include "diffusion/detail/fft.hpp"

#include <climits>
#include <string>

#include "core/error.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cufft.h>
#else
#include <fftw3.h>
#endif

namespace trident::diffusion {

namespace {

#if defined(KOKKOS_ENABLE_CUDA)
// Lines per cuFFT call: enough to fill an H100/H200 with lines of a few thousand points,
// and fixed, so that the plan (and so the arithmetic) never depends on the rank count.
constexpr std::int64_t kBatch = 128;

void check(cufftResult status, const char* what) {
  if (status != CUFFT_SUCCESS)
    throw RunError(std::string("cuFFT: ") + what + " failed (cufftResult " + std::to_string(int(status)) + ")");
}
#endif

}  // namespace

LineFft::LineFft(FftKind kind, std::int64_t n) : kind_(kind), n_(n) {
  const bool real_in = kind == FftKind::real_to_complex, real_out = kind == FftKind::complex_to_real;
  in_length_ = real_out ? n / 2 + 1 : n;
  out_length_ = real_in ? n / 2 + 1 : n;
  if (n < 1 || n > INT_MAX) throw RunError("FFT: line length " + std::to_string(n) + " is out of range");
#if defined(KOKKOS_ENABLE_CUDA)
  cufftType type = real_in ? CUFFT_D2Z : real_out ? CUFFT_Z2D : CUFFT_Z2Z;
  int size = static_cast<int>(n);
  cufftHandle plan;
  // Basic layout: lines of in_length and out_length elements, one after the other.
  check(cufftPlanMany(&plan, 1, &size, nullptr, 1, 0, nullptr, 1, 0, type, static_cast<int>(kBatch)),
        "planning");
  check(cufftSetStream(plan, Kokkos::Cuda().cuda_stream()), "setting the stream");
  plan_ = reinterpret_cast<void*>(static_cast<std::uintptr_t>(plan));
#else
  // FFTW_ESTIMATE plans without timing anything (so every rank gets the same plan) and
  // FFTW_UNALIGNED lets the one plan run on any line, wherever it starts.
  const unsigned flags = FFTW_ESTIMATE | FFTW_UNALIGNED;
  double* real = fftw_alloc_real(static_cast<std::size_t>(n));
  fftw_complex* complex = fftw_alloc_complex(static_cast<std::size_t>(n));
  const int size = static_cast<int>(n);
  fftw_plan plan = real_in    ? fftw_plan_dft_r2c_1d(size, real, complex, flags)
                   : real_out ? fftw_plan_dft_c2r_1d(size, complex, real, flags)
                              : fftw_plan_dft_1d(size, complex, complex,
                                                 kind == FftKind::forward ? FFTW_FORWARD : FFTW_BACKWARD, flags);
  fftw_free(real);
  fftw_free(complex);
  if (!plan) throw RunError("FFTW: no plan for a line of " + std::to_string(n));
  plan_ = plan;
#endif
}

LineFft::~LineFft() {
#if defined(KOKKOS_ENABLE_CUDA)
  cufftDestroy(static_cast<cufftHandle>(reinterpret_cast<std::uintptr_t>(plan_)));
#else
  fftw_destroy_plan(static_cast<fftw_plan>(plan_));
#endif
}

std::int64_t LineFft::padded_lines(std::int64_t lines) const {
#if defined(KOKKOS_ENABLE_CUDA)
  return (lines + kBatch - 1) / kBatch * kBatch;
#else
  return lines;
#endif
}

const char* LineFft::library() {
#if defined(KOKKOS_ENABLE_CUDA)
  return "cuFFT";
#else
  return "FFTW";
#endif
}

void LineFft::run(void* in, void* out, std::int64_t lines) const {
  if (lines <= 0) return;
#if defined(KOKKOS_ENABLE_CUDA)
  const auto plan = static_cast<cufftHandle>(reinterpret_cast<std::uintptr_t>(plan_));
  Kokkos::fence();  // the kernels that wrote `in`
  for (std::int64_t first = 0; first < lines; first += kBatch) {
    if (kind_ == FftKind::real_to_complex) {
      check(cufftExecD2Z(plan, static_cast<double*>(in) + first * in_length_,
                         static_cast<cufftDoubleComplex*>(out) + first * out_length_),
            "a real-to-complex transform");
    } else if (kind_ == FftKind::complex_to_real) {
      check(cufftExecZ2D(plan, static_cast<cufftDoubleComplex*>(in) + first * in_length_,
                         static_cast<double*>(out) + first * out_length_),
            "a complex-to-real transform");
    } else {
      check(cufftExecZ2Z(plan, static_cast<cufftDoubleComplex*>(in) + first * in_length_,
                         static_cast<cufftDoubleComplex*>(out) + first * out_length_,
                         kind_ == FftKind::forward ? CUFFT_FORWARD : CUFFT_INVERSE),
            "a complex transform");
    }
  }
  Kokkos::fence();
#else
  const auto plan = static_cast<fftw_plan>(plan_);
  for (std::int64_t line = 0; line < lines; ++line) {
    if (kind_ == FftKind::real_to_complex) {
      fftw_execute_dft_r2c(plan, static_cast<double*>(in) + line * in_length_,
                           static_cast<fftw_complex*>(out) + line * out_length_);
    } else if (kind_ == FftKind::complex_to_real) {
      fftw_execute_dft_c2r(plan, static_cast<fftw_complex*>(in) + line * in_length_,
                           static_cast<double*>(out) + line * out_length_);
    } else {
      fftw_execute_dft(plan, static_cast<fftw_complex*>(in) + line * in_length_,
                       static_cast<fftw_complex*>(out) + line * out_length_);
    }
  }
#endif
}

}  // namespace trident::diffusion
