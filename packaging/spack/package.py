# Spack recipe for galapagos. Copy it into a Spack repository of your own as
# packages/galapagos/package.py and set `git` to the repository your group clones galapagos from,
# or build a checkout with `spack develop --path CHECKOUT galapagos@main` (docs/install.md).
from spack.package import *


class Galapagos(CMakePackage):
    """Island-model genetic search for faster HPC kernels (stencils, SpMV, GEMM), evaluated in a
    sandbox against a Kokkos reference, with every measurement stored in HDF5."""

    homepage = "https://example.org/galapagos"  # replace: where your group keeps galapagos
    git = "https://example.org/galapagos.git"  # replace: the repository to clone

    version("main", branch="main")

    variant("cuda", default=False, description="Build the CUDA device backend of the worker")
    variant("tests", default=False, description="Build the test suite")

    depends_on("cxx", type="build")
    depends_on("c", type="build")
    depends_on("cmake@3.25:", type="build")
    depends_on("pkgconfig", type="build")

    depends_on("mpi")
    depends_on("hdf5~mpi", type=("build", "link"))
    depends_on("kokkos+openmp")
    depends_on("boost+program_options")
    depends_on("nlohmann-json")
    depends_on("tomlplusplus")
    depends_on("muparser")
    depends_on("libseccomp")
    depends_on("nettle")
    depends_on("blas")
    depends_on("cuda", when="+cuda")
    depends_on("googletest", when="+tests", type="build")

    # galapagos report and compare: the Python package (share/galapagos/python) runs under
    # GALAPAGOS_PYTHON, set by the module below, which also puts the package on PYTHONPATH.
    depends_on("python@3.11:", type="run")
    depends_on("py-h5py", type="run")
    depends_on("py-numpy", type="run")
    depends_on("py-pandas", type="run")
    depends_on("py-matplotlib", type="run")

    def cmake_args(self):
        return [
            self.define("GALAPAGOS_HDF5_FLAVOR", "serial"),
            self.define_from_variant("GALAPAGOS_ENABLE_CUDA", "cuda"),
            self.define_from_variant("GALAPAGOS_BUILD_TESTS", "tests"),
        ]

    def setup_run_environment(self, env):
        env.set("GALAPAGOS_PYTHON", self.spec["python"].command.path)
        env.prepend_path("PYTHONPATH", join_path(self.prefix.share, "galapagos", "python"))
