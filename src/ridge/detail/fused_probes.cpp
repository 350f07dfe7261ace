// GCV's probes on the fused engine's matrices (probe_lanczos.hpp): the block products read
// the same DeviceCsr layouts of A and A^T as the sweep (packs, 16-bit indices, lanes,
// segments of long rows, column bands).
#include "ridge/detail/fused_engine.hpp"
#include "ridge/detail/probe_lanczos.hpp"

namespace trident::ridge::fused {

template <class M, class S>
ProbeNorms FusedEngine<M, S>::bidiagonalize_probes(const ProbeStart& start, const std::int64_t steps,
                                                   const ProbeCheck& enough) {
  return run_probe_lanczos<ProbeScalar>(FusedProbeProducts<M, ProbeScalar>{a_, at_}, rows_comm_, rows_, columns_,
                                        start, steps, enough);
}

template ProbeNorms FusedEngine<float, float>::bidiagonalize_probes(const ProbeStart&, std::int64_t,
                                                                        const ProbeCheck&);
template ProbeNorms FusedEngine<float, double>::bidiagonalize_probes(const ProbeStart&, std::int64_t,
                                                                        const ProbeCheck&);
template ProbeNorms FusedEngine<double, double>::bidiagonalize_probes(const ProbeStart&, std::int64_t,
                                                                        const ProbeCheck&);

}  // namespace trident::ridge::fused
