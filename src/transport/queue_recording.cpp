#include "transport/queue_recording.hpp"

#include "core/error.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace trident::transport {

#if defined(KOKKOS_ENABLE_CUDA)
struct QueueRecording::Graph {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ~Graph() {
    if (exec != nullptr) cudaGraphExecDestroy(exec);
    if (graph != nullptr) cudaGraphDestroy(graph);
  }
};

bool QueueRecording::record(const std::function<void()>& queue, std::string& why_not) {
  graph_.reset();
  const cudaStream_t stream = Kokkos::Cuda().cuda_stream();
  // Relaxed: Kokkos may look up kernel attributes while the work is queued, which the
  // stricter modes refuse; anything that waits on the stream still ends the recording.
  cudaError_t status = cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed);
  if (status != cudaSuccess) {
    why_not = std::string("CUDA refused to record the stream: ") + cudaGetErrorString(status);
    cudaGetLastError();
    return false;
  }
  auto g = std::make_unique<Graph>();
  std::string thrown;
  try {
    queue();
  } catch (const std::exception& e) {
    thrown = e.what();
  }
  status = cudaStreamEndCapture(stream, &g->graph);
  if (!thrown.empty() || status != cudaSuccess) {
    why_not = thrown.empty() ? std::string("the work could not be recorded: ") + cudaGetErrorString(status)
                             : "the work could not be recorded: " + thrown;
    cudaGetLastError();  // the failed capture's error is not the next call's
    return false;
  }
  status = cudaGraphInstantiate(&g->exec, g->graph, 0);
  if (status != cudaSuccess) {
    why_not = std::string("the recording could not be prepared: ") + cudaGetErrorString(status);
    cudaGetLastError();
    return false;
  }
  graph_ = std::move(g);
  return true;
}

void QueueRecording::replay() const {
  const cudaError_t status = cudaGraphLaunch(graph_->exec, Kokkos::Cuda().cuda_stream());
  if (status != cudaSuccess) throw RunError(std::string("replaying recorded device work: ") + cudaGetErrorString(status));
}
#else
struct QueueRecording::Graph {};

bool QueueRecording::record(const std::function<void()>&, std::string& why_not) {
  why_not = "not a CUDA build";
  return false;
}

void QueueRecording::replay() const { throw RunError("replaying device work that was not recorded"); }
#endif

QueueRecording::QueueRecording() = default;
QueueRecording::~QueueRecording() = default;
bool QueueRecording::recorded() const { return graph_ != nullptr; }

}  // namespace trident::transport
