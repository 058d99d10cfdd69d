// The worker's GPU devices: one test source run against each GPU backend the build has (CUDA, and
// HIP, which is AMD's runtime on AMD GPUs or the CUDA runtime under the HIP names on NVIDIA GPUs).
// On a machine without a GPU each backend must say so in words a user can act on; on one with a
// GPU each must move bytes up and back unchanged, time a call, flush and probe the device.
// Also the discovery of AMD GPUs from the kernel's KFD topology, on a topology written here.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/device.hpp"
#include "eval/gpu_monitor.hpp"
#include "eval/toolchain.hpp"

namespace be = galapagos::backends;
namespace fs = std::filesystem;

namespace {

bool has_gpu() { return galapagos::eval::nvidia_gpus().count > 0 || galapagos::eval::amd_gpus().count > 0; }

struct backend_case {
  const char* name;
  std::function<std::unique_ptr<be::device>(int)> make;
  const char* without_gpu;  // what it says on a machine without a GPU, when it was built
  bool built;
};

std::vector<backend_case> backends() {
  return {{"cuda", be::make_cuda_device, "no NVIDIA GPU found", GLP_TEST_CUDA_BUILT != 0},
          {"hip", be::make_hip_device, "no AMD or NVIDIA GPU found", GLP_TEST_HIP_BUILT != 0}};
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// An entry point that does nothing on the device: what the timing of a call costs by itself.
int empty_call(const glp_arg*, int, const std::int64_t*, void*) { return 0; }
int failing_call(const glp_arg*, int, const std::int64_t*, void*) { return 7; }

}  // namespace

TEST(GpuBackends, WithoutAGpuEachSaysSoOrThatItWasNotBuilt) {
  if (has_gpu()) GTEST_SKIP() << "this machine has a GPU";
  for (const auto& b : backends()) {
    const std::string why = message_of([&] { b.make(0); });
    if (b.built)
      EXPECT_EQ(why, b.without_gpu) << b.name;
    else
      EXPECT_NE(why.find("not compiled in"), std::string::npos) << b.name << ": " << why;
  }
}

// AMD's runtime is a module the worker loads on AMD nodes only (amd_module.cpp): it loads, and its
// entry point answers with a device on an AMD GPU or says why not, without throwing across.
TEST(GpuBackends, TheAmdModuleLoadsAndItsRuntimeAnswers) {
  if (!GLP_TEST_HIP_AMD_BUILT) GTEST_SKIP() << "the HIP backend for AMD GPUs was not built";
  const std::string path = std::string(GALAPAGOS_BIN_DIR) + "/galapagos-hip-amd.so";
  void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(module, nullptr) << dlerror();
  using make_fn = be::device* (*)(int, char*, std::size_t, int*);
  const auto make = reinterpret_cast<make_fn>(dlsym(module, "glp_make_hip_device_on_amd"));
  ASSERT_NE(make, nullptr);
  char message[512] = {};
  int no_gpu_found = -1;
  std::unique_ptr<be::device> dev(make(0, message, sizeof message, &no_gpu_found));
  if (galapagos::eval::amd_gpus().count > 0) {
    EXPECT_NE(dev, nullptr) << message;
  } else {
    EXPECT_EQ(dev, nullptr);
    EXPECT_EQ(no_gpu_found, 1) << message;
    EXPECT_NE(std::string(message), "");
  }
}

TEST(GpuBackends, WithoutAGpuTheHipToolchainNamesBothVendors) {
  if (has_gpu()) GTEST_SKIP() << "this machine has a GPU";
  const std::string why = message_of([] { galapagos::eval::toolchain_for("hip", "g++", "/nonexistent"); });
  EXPECT_NE(why.find("no AMD or NVIDIA GPU found"), std::string::npos) << why;
  EXPECT_EQ(message_of([] { galapagos::eval::toolchain_for("cpu", "g++", "/nonexistent"); }), "");
}

TEST(GpuBackends, OnAGpuBytesGoUpAndBackAndCallsAreTimed) {
  if (!has_gpu()) GTEST_SKIP() << "no GPU on this machine";
  for (const auto& b : backends()) {
    if (!b.built) continue;
    std::unique_ptr<be::device> dev;
    try {
      dev = b.make(0);
    } catch (const be::no_gpu& e) {
      continue;  // e.g. the CUDA backend on an AMD machine
    }
    SCOPED_TRACE(b.name);
    std::vector<double> in(1 << 20), out(in.size(), -1.0);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = 0.5 * static_cast<double>(i);
    const std::vector<be::arena_arg> up = {
        {reinterpret_cast<std::byte*>(in.data()), static_cast<std::int64_t>(in.size()), GLP_FLOAT64, 0}};
    const auto staged = dev->stage(up, 0);
    ASSERT_EQ(staged.size(), 1u);
    EXPECT_NE(staged[0].data, static_cast<void*>(in.data()));  // a device copy, not the host bytes
    const std::vector<be::arena_arg> down = {
        {reinterpret_cast<std::byte*>(out.data()), static_cast<std::int64_t>(out.size()), GLP_FLOAT64, 0}};
    dev->collect(down, staged);
    EXPECT_EQ(std::memcmp(in.data(), out.data(), in.size() * sizeof(double)), 0);
    // A further set told to take argument 0 from set 0 gets set 0's device copy; argument 1 its own.
    const auto further = dev->stage({up[0], down[0]}, 1, 0b01);
    ASSERT_EQ(further.size(), 2u);
    EXPECT_EQ(further[0].data, staged[0].data);
    EXPECT_NE(further[1].data, staged[0].data);

    const std::vector<std::vector<glp_arg>> sets = {staged};
    int rc = -1;
    const double s = dev->run(empty_call, sets, {1}, 3, rc);
    EXPECT_EQ(rc, 0);
    EXPECT_GE(s, 0.0);
    EXPECT_LT(s, 1.0);
    dev->run(failing_call, sets, {1}, 3, rc);
    EXPECT_EQ(rc, 7);
    dev->flush();
    EXPECT_GT(dev->run_calibration_work(), 0.0);
    const auto c = dev->probe();
    EXPECT_GT(c.bandwidth_gbs, 50.0);  // any data-centre GPU copies far faster than this
    EXPECT_FALSE(c.pci_bus_id.empty());
    // The orchestrator finds the same card through its vendor's monitoring library (NVML on
    // NVIDIA; ROCm SMI on AMD where the build found it) by the bus id the worker reports.
    if (const auto monitor = galapagos::eval::gpu_monitor::open(c.pci_bus_id)) {
      EXPECT_FALSE(monitor->name().empty()) << monitor->library();
      EXPECT_GT(monitor->now().sm_clock_mhz, 0u) << monitor->library();
    }
  }
}

// ROCm SMI names a card by its PCI address packed into one number; CUDA and HIP write it as text.
TEST(GpuMonitor, PciBusIdsBecomeRocmSmiNumbersAndNothingElseDoes) {
  using galapagos::eval::pci_bdf;
  EXPECT_EQ(pci_bdf("0000:c1:00.0"), std::uint64_t{0xc1} << 8);
  EXPECT_EQ(pci_bdf("0001:C1:1f.7"), (std::uint64_t{1} << 32) | (0xc1 << 8) | (0x1f << 3) | 7);
  EXPECT_EQ(pci_bdf("00000000:65:00.0"), std::uint64_t{0x65} << 8);  // NVML's long domain
  EXPECT_FALSE(pci_bdf(""));
  EXPECT_FALSE(pci_bdf("c1:00.0"));
  EXPECT_FALSE(pci_bdf("0000:c1:00.0 "));
  EXPECT_FALSE(pci_bdf("0000:c1:20.0"));  // a device number has 5 bits
  EXPECT_FALSE(pci_bdf("0000:c1:00.8"));  // a function number has 3
  EXPECT_FALSE(pci_bdf("0000:100:00.0"));
  // No monitor for a card no library knows, and none without a bus id (the CPU backend).
  EXPECT_EQ(galapagos::eval::gpu_monitor::open(""), nullptr);
  EXPECT_EQ(galapagos::eval::gpu_monitor::open("0000:ff:1f.7"), nullptr);
}

TEST(AmdTopology, GpuNodesAndTheirTargetAreReadCpuNodesSkipped) {
  const fs::path root = fs::temp_directory_path() / ("galapagos-kfd-" + std::to_string(::getpid()));
  fs::remove_all(root);
  auto node = [&](int n, const std::string& properties) {
    fs::create_directories(root / std::to_string(n));
    std::ofstream(root / std::to_string(n) / "properties") << properties;
  };
  EXPECT_EQ(galapagos::eval::amd_gpus(root).count, 0);  // no such folder: no GPU
  node(0, "cpu_cores_count 64\nsimd_count 0\ngfx_target_version 0\n");
  EXPECT_EQ(galapagos::eval::amd_gpus(root).count, 0);
  node(1, "cpu_cores_count 0\nsimd_count 440\nmax_waves_per_simd 8\ngfx_target_version 90010\nvendor_id 4098\n");
  node(2, "cpu_cores_count 0\nsimd_count 440\ngfx_target_version 90010\n");
  auto g = galapagos::eval::amd_gpus(root);
  EXPECT_EQ(g.count, 2);
  EXPECT_EQ(g.arch, "gfx90a");
  fs::remove_all(root);
  node(3, "gfx_target_version 90402\n");
  EXPECT_EQ(galapagos::eval::amd_gpus(root).arch, "gfx942");
  fs::remove_all(root);
  node(0, "gfx_target_version 110000\n");
  EXPECT_EQ(galapagos::eval::amd_gpus(root).arch, "gfx1100");
  fs::remove_all(root);
}
