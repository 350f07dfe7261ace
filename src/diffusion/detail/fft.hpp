#pragma once
// Batched 1D FFTs in float64 on the memory of Kokkos' default execution space, through a
// vendor library: cuFFT when Kokkos runs on CUDA, FFTW on host backends. Every line gets
// the same arithmetic however many lines are transformed together and wherever they sit
// in memory (cuFFT: one plan of a fixed batch size, run batch after batch; FFTW: one plan
// of one unaligned line, run line after line), so a field built from these lines is
// bitwise the same however its lines are shared among ranks.
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace trident::diffusion {

enum class FftKind {
  real_to_complex,  // n doubles -> n/2 + 1 complex values (the non-negative frequencies)
  forward,          // n complex -> n complex, exp(-2 pi i jk/n)
  inverse,          // n complex -> n complex, exp(+2 pi i jk/n), unnormalised
  complex_to_real,  // n/2 + 1 complex -> n doubles, unnormalised; overwrites its input
};

class LineFft {
 public:
  // `n`: the length of a line in real space (the transform's size).
  LineFft(FftKind kind, std::int64_t n);
  ~LineFft();
  LineFft(const LineFft&) = delete;
  LineFft& operator=(const LineFft&) = delete;

  // Elements (doubles or complex values) of one input and one output line.
  std::int64_t in_length() const { return in_length_; }
  std::int64_t out_length() const { return out_length_; }
  // Lines that the input and output buffers must have room for to transform `lines`
  // lines: cuFFT runs whole batches.
  std::int64_t padded_lines(std::int64_t lines) const;
  // Transforms `lines` consecutive lines of `in` into `out` (device pointers to double or
  // Kokkos::complex<double>; `in` == `out` only for the complex-to-complex kinds). Returns
  // when the result is in `out`.
  void run(void* in, void* out, std::int64_t lines) const;

  // "cuFFT" or "FFTW", for logs.
  static const char* library();

 private:
  FftKind kind_;
  std::int64_t n_, in_length_, out_length_;
  void* plan_ = nullptr;  // cufftHandle or fftw_plan
};

}  // namespace trident::diffusion
