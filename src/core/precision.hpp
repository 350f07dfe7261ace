#pragma once
// The precision a study computes in, one type for every study: the deck reader parses it
// once (each study allows its own set) and the studies, their options and the output's
// attributes take it from there.
namespace trident::core {

// float32 and float64: the values and the arithmetic in that precision. mixed (ridge only):
// A and A^T in float32, the vectors and the products' sums in float64.
enum class Precision { float32, float64, mixed };

// The name in the deck, the run log and the output's attributes.
constexpr const char* precision_name(Precision p) {
  switch (p) {
    case Precision::float64: return "float64";
    case Precision::mixed: return "mixed";
    default: return "float32";
  }
}

}  // namespace trident::core
