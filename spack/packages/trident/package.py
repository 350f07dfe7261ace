# Spack recipe for trident (Package API v1, which Spack 0.23 and 1.x read; docs/install.md#spack).
# It lives in trident's own repository and fetches from that checkout's git history:
# `spack install trident@main` builds the committed main branch, and `spack develop trident@main`
# in an environment builds the working tree instead.
import os

from spack.package import *


class Trident(CMakePackage, CudaPackage):
    """MPI + Kokkos application for GPU clusters: explicit 2D diffusion, exact great-circle
    k-nearest neighbours and ridge-regression (LSMR) L-curve sweeps, driven by YAML decks and
    writing HDF5 outputs with their provenance."""

    git = "file://" + os.path.realpath(os.path.join(os.path.dirname(__file__), *[os.pardir] * 3))

    license("BSD-3-Clause")

    version("main", branch="main")

    variant("openmp", default=False, description="Kokkos and Kokkos Kernels with the OpenMP host backend")
    variant("nccl", default=True, when="+cuda",
            description="Device data between ranks (halos, sums, kNN rows) through NCCL")
    variant("postprocess", default=True,
            description="The post-processing commands and Python package (h5py, numpy, matplotlib)")

    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("cmake@3.21:", type="build")

    depends_on("mpi")
    depends_on("hdf5@1.10: +mpi +hl")  # +hl: dimension scales (H5DS) for named dimensions
    depends_on("yaml-cpp@0.6:0.8")
    depends_on("fftw@3 precision=double", when="~cuda")  # the jagged start field; cuFFT with CUDA
    depends_on("googletest@1.10:", type="test")

    # Kokkos and Kokkos Kernels with the backends trident is built for, the same on both.
    depends_on("kokkos@3.4:")
    depends_on("kokkos-kernels@3.4:")
    depends_on("kokkos+cuda", when="+cuda")
    depends_on("kokkos~cuda", when="~cuda")
    depends_on("kokkos+cuda_lambda", when="+cuda ^kokkos@:4")  # device lambdas (KOKKOS_LAMBDA)
    depends_on("kokkos-kernels+cuda+cublas+cusparse", when="+cuda")
    depends_on("kokkos-kernels~cuda", when="~cuda")
    depends_on("kokkos+openmp", when="+openmp")
    depends_on("kokkos~openmp", when="~openmp")
    depends_on("kokkos-kernels+openmp", when="+openmp")
    depends_on("nccl", when="+nccl")
    # Kokkos builds for one GPU architecture: trident, Kokkos, Kokkos Kernels and NCCL share it.
    for arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos cuda_arch={arch}", when=f"+cuda cuda_arch={arch}")
        depends_on(f"kokkos-kernels cuda_arch={arch}", when=f"+cuda cuda_arch={arch}")
        depends_on(f"nccl cuda_arch={arch}", when=f"+nccl cuda_arch={arch}")
    conflicts("cuda_arch=none", when="+cuda", msg="trident +cuda needs the GPU's cuda_arch, e.g. cuda_arch=90")

    with when("+postprocess"):
        depends_on("python@3.8:", type=("build", "run"))  # build: written into the commands
        depends_on("py-h5py", type="run")
        depends_on("py-numpy", type="run")
        depends_on("py-matplotlib", type="run")

    # Where the install puts the Python package (cmake/TridentInstall.cmake's default).
    python_dir = join_path("lib", "python3", "dist-packages")

    def cmake_args(self):
        spec = self.spec
        args = [
            # nvcc_wrapper for a Kokkos built with +wrapper, else Spack's compiler
            self.define("CMAKE_CXX_COMPILER", spec["kokkos"].kokkos_cxx),
            self.define("Kokkos_ROOT", spec["kokkos"].prefix),
            self.define("KokkosKernels_ROOT", spec["kokkos-kernels"].prefix),
            self.define("TRIDENT_ENABLE_TESTS", self.run_tests),
            self.define("TRIDENT_ENABLE_BENCH", False),
            self.define("TRIDENT_ENABLE_NCCL", "ON" if spec.satisfies("+nccl") else "OFF"),
            self.define("TRIDENT_INSTALL_PYTHONDIR", self.python_dir),
        ]
        if spec.satisfies("+cuda"):
            args.append(self.define("CMAKE_CUDA_ARCHITECTURES", ";".join(spec.variants["cuda_arch"].value)))
        if spec.satisfies("+nccl"):
            args.append(self.define("NCCL_ROOT", spec["nccl"].prefix))
        if spec.satisfies("+postprocess"):
            args.append(self.define("TRIDENT_PYTHON", spec["python"].command.path))
        return args

    def setup_run_environment(self, env):
        # `import trident_postprocess` from the install (the commands find it themselves)
        if self.spec.satisfies("+postprocess"):
            env.prepend_path("PYTHONPATH", join_path(self.prefix, self.python_dir))
