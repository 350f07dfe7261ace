#!/usr/bin/python3
"""Checks trident's Spack recipe without Spack: spack/packages/trident/package.py is run against a
stand-in for `spack.package` that records its directives, and the record is checked: the class
and its bases, the variants (cuda and cuda_arch from CudaPackage, nccl, openmp, postprocess), the
dependencies and the backends they must share with Kokkos and Kokkos Kernels, every TRIDENT_*
option cmake_args() sets being a cache variable of the CMake project, the package folder being
cmake/TridentInstall.cmake's; also spack/repo.yaml's namespace and nccl in spack.yaml.

usage: check_spack_package.py SOURCE_DIR        (exits 1 naming every check that failed)
"""
import ast
import contextlib
import os
import re
import sys
import types

try:
    import yaml  # python3-yaml: the files are also parsed as YAML where it is installed
except ImportError:
    yaml = None

source = sys.argv[1]
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


# ---- a stand-in for spack.package: directives recorded, conditions from `with when()` kept ----
record = {"variants": {}, "depends": [], "conflicts": [], "versions": []}
conditions = []


def _when(when):
    return " ".join(c for c in conditions + [when or ""] if c).strip()


def variant(name, default=None, description="", values=None, multi=False, when=None, **_):
    record["variants"][name] = {"default": default, "when": _when(when)}


def depends_on(spec, when=None, type=("build", "link")):
    record["depends"].append({"spec": spec, "when": _when(when),
                              "type": (type,) if isinstance(type, str) else tuple(type)})


def conflicts(spec, when=None, msg=None):
    record["conflicts"].append({"spec": spec, "when": _when(when)})


def version(name, **kwargs):
    record["versions"].append((name, kwargs))


@contextlib.contextmanager
def when(condition):
    conditions.append(condition)
    yield
    conditions.pop()


class CMakePackage:
    def define(self, name, value):
        return (name, value)


class CudaPackage:
    cuda_arch_values = ("70", "80", "86", "89", "90", "90a", "100")


stand_in = types.ModuleType("spack.package")
for name, value in dict(variant=variant, depends_on=depends_on, conflicts=conflicts, version=version,
                        when=when, license=lambda *a, **k: None, join_path=os.path.join,
                        CMakePackage=CMakePackage, CudaPackage=CudaPackage).items():
    setattr(stand_in, name, value)
sys.modules["spack"] = types.ModuleType("spack")
sys.modules["spack.package"] = stand_in
# CudaPackage's own variants, as Spack declares them
variant("cuda", default=False)
variant("cuda_arch", when="+cuda")

path = os.path.join(source, "spack", "packages", "trident", "package.py")
text = open(path, encoding="utf-8").read()
tree = ast.parse(text, path)
classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
check([c.name for c in classes] == ["Trident"], f"package.py defines {[c.name for c in classes]}, not Trident")
check(classes and [ast.unparse(b) for b in classes[0].bases] == ["CMakePackage", "CudaPackage"],
      "Trident is not a CMakePackage with CudaPackage")
module = {"__file__": path, "__name__": "trident_package"}
exec(compile(tree, path, "exec"), module)
Trident = module["Trident"]

# ---- variants and dependencies ----
for name, when_ in (("cuda", ""), ("cuda_arch", "+cuda"), ("nccl", "+cuda"), ("openmp", ""), ("postprocess", "")):
    check(name in record["variants"], f"no variant {name}")
    check(record["variants"].get(name, {}).get("when", "") == when_,
          f"variant {name} when '{record['variants'].get(name, {}).get('when')}', expected '{when_}'")


def depends(spec, when_="", kind=None):
    """A dependency whose spec starts with `spec` (a name and constraints) under `when_`."""
    found = [d for d in record["depends"] if d["when"] == when_ and
             (d["spec"] == spec or d["spec"].startswith(spec + " ") or d["spec"].startswith(spec + "@"))]
    if kind is not None:
        found = [d for d in found if kind in d["type"]]
    check(found, f"no depends_on('{spec}'" + (f", when='{when_}'" if when_ else "") +
          (f", type {kind}" if kind else "") + ")")


for spec in ("mpi", "kokkos", "kokkos-kernels", "yaml-cpp", "cmake"):
    depends(spec)
check(any(re.match(r"hdf5(@\S+)? .*\+mpi", d["spec"]) and "+hl" in d["spec"] for d in record["depends"]),
      "hdf5 is not required with +mpi and +hl")
depends("fftw", "~cuda")
depends("googletest", kind="test")
depends("kokkos+cuda", "+cuda")
depends("kokkos-kernels+cuda+cublas+cusparse", "+cuda")
depends("kokkos+openmp", "+openmp")
depends("kokkos-kernels+openmp", "+openmp")
depends("kokkos~openmp", "~openmp")
depends("nccl", "+nccl")
for arch in CudaPackage.cuda_arch_values:
    for dep, on in (("kokkos", "+cuda"), ("kokkos-kernels", "+cuda"), ("nccl", "+nccl")):
        depends(f"{dep} cuda_arch={arch}", f"{on} cuda_arch={arch}")
for dep in ("python", "py-h5py", "py-numpy", "py-matplotlib"):
    depends(dep, "+postprocess", kind="run")
check(any(c["spec"] == "cuda_arch=none" and c["when"] == "+cuda" for c in record["conflicts"]),
      "no conflict for +cuda without a cuda_arch")
check(record["versions"] and record["versions"][0][0] == "main", "no version main")
check(Trident.git.startswith("file://") and os.path.realpath(Trident.git[7:]) == os.path.realpath(source),
      f"git {Trident.git} is not the checkout that holds the recipe")

# ---- cmake_args: every TRIDENT_* it sets is a cache variable of the project ----
cmake_text = "".join(open(os.path.join(d, f), encoding="utf-8").read()
                     for d, f in [(source, "CMakeLists.txt")] +
                     [(os.path.join(source, "cmake"), f) for f in os.listdir(os.path.join(source, "cmake"))
                      if f.endswith(".cmake")])
cache = set(re.findall(r"option\((TRIDENT_\w+)", cmake_text))
cache |= set(re.findall(r"set\((TRIDENT_\w+)[^)]*\bCACHE\b", cmake_text))
names = set(re.findall(r'self\.define(?:_from_variant)?\("([A-Za-z_]+)"', text))
for name in sorted(n for n in names if n.startswith("TRIDENT_")):
    check(name in cache, f"cmake_args sets {name}, which is no cache variable of the project")
check({"CMAKE_CXX_COMPILER", "Kokkos_ROOT", "KokkosKernels_ROOT", "NCCL_ROOT", "CMAKE_CUDA_ARCHITECTURES",
       "TRIDENT_PYTHON", "TRIDENT_ENABLE_TESTS"} <= names, f"cmake_args sets only {sorted(names)}")
default = re.search(r'set\(TRIDENT_INSTALL_PYTHONDIR "([^"]+)"', cmake_text)
check(default and Trident.python_dir == default.group(1),
      f"package.py's python_dir {Trident.python_dir} is not TridentInstall.cmake's default")

# ---- the repository and the environment ----
repo_text = open(os.path.join(source, "spack", "repo.yaml"), encoding="utf-8").read()
check(re.search(r"^repo:\n(  .*\n)*  namespace: trident$", repo_text, re.M), "spack/repo.yaml: no namespace trident")
environment_text = open(os.path.join(source, "spack.yaml"), encoding="utf-8").read()
specs = re.findall(r'^  - "?([^"\n]+)"?$', environment_text, re.M)
if yaml is not None:
    check(yaml.safe_load(repo_text)["repo"]["namespace"] == "trident", "spack/repo.yaml as YAML: namespace")
    specs = yaml.safe_load(environment_text)["spack"]["specs"]
check(any(re.match(r"nccl(@|\s|$)", s) for s in specs), f"spack.yaml has no nccl spec: {specs}")

if failures:
    sys.exit("spack recipe: " + "; ".join(failures))
print(f"spack recipe: {len(record['depends'])} dependencies, variants {sorted(record['variants'])}: ok")
