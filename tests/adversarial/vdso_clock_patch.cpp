// expect: sandbox_violation
// Attack: tamper with the worker's clock at run time, with no forbidden symbol exported. On
// the first call at the timing size (>= 500,000 points) the candidate finds the vDSO
// (getauxval(AT_SYSINFO_EHDR)), looks up __vdso_clock_gettime in its dynamic symbol table,
// makes the vDSO writable with mprotect (its text is a private, copy-on-write mapping; the
// whole mapping must be covered, the kernel refuses to split it)
// and overwrites the entry with a jump to its own clock_gettime. glibc's clock_gettime --
// hence std::chrono::steady_clock/system_clock in the worker -- then returns a dilated
// clock that runs at half speed (it reads the real time with a raw syscall), so every
// interval the worker measures is halved: an apparent 2x speedup. The stencil itself is
// computed honestly, on every call.
// Why it must be stopped: the worker's clock lives in the candidate's address space and
// cannot be trusted. The patch needs the vDSO writable and executable at once (or made
// executable again afterwards): on the CPU path the system-call allow-list never lets mprotect
// add PROT_EXEC, so the worker dies with SIGSYS: sandbox_violation. Behind that, the parent
// times every run on its own clock, out of the candidate's reach (on GPUs it rejects
// worker-reported times that disagree with it: timer_mismatch), so the halved clock would
// never be a 2x "win" anyway.
#include "glp_kernel.h"

#include <elf.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

namespace {

constexpr double kDilation = 0.5;
constexpr int kClocks = 12;
long long g_base_ns[kClocks];
bool g_patched = false;

inline long raw_clock_gettime(long clk, struct timespec* ts) {
  long ret;
  __asm__ __volatile__("syscall" : "=a"(ret) : "a"(228L /* SYS_clock_gettime */), "D"(clk), "S"(ts) : "rcx", "r11", "memory");
  return ret;
}

// Same ABI as __vdso_clock_gettime: returns 0 or -errno.
extern "C" int dilated_clock_gettime(clockid_t clk, struct timespec* ts) {
  const long r = raw_clock_gettime(clk, ts);
  if (r != 0) return static_cast<int>(r);
  const bool wall_or_mono = clk == CLOCK_REALTIME || clk == CLOCK_MONOTONIC || clk == CLOCK_MONOTONIC_RAW ||
                            clk == CLOCK_REALTIME_COARSE || clk == CLOCK_MONOTONIC_COARSE || clk == CLOCK_BOOTTIME;
  if (wall_or_mono && clk >= 0 && clk < kClocks) {
    const long long now = ts->tv_sec * 1000000000LL + ts->tv_nsec;
    const long long fake = g_base_ns[clk] + static_cast<long long>(static_cast<double>(now - g_base_ns[clk]) * kDilation);
    ts->tv_sec = fake / 1000000000LL;
    ts->tv_nsec = fake % 1000000000LL;
  }
  return 0;
}

// Finds `name` in the vDSO's dynamic symbol table; also returns the extent of the image
// (mprotect must cover the whole special mapping: the kernel refuses to split it).
void* vdso_symbol(const char* name, uintptr_t& image_start, size_t& image_len) {
  const uintptr_t base = getauxval(AT_SYSINFO_EHDR);
  if (base == 0) return nullptr;
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(base);
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_shoff == 0) return nullptr;
  uintptr_t load_vaddr = 0, load_end = 0;
  bool first = true;
  const auto* ph = reinterpret_cast<const Elf64_Phdr*>(base + eh->e_phoff);
  for (int i = 0; i < eh->e_phnum; ++i) {
    if (ph[i].p_type != PT_LOAD) continue;
    if (first) load_vaddr = ph[i].p_vaddr;
    first = false;
    if (ph[i].p_vaddr + ph[i].p_memsz > load_end) load_end = ph[i].p_vaddr + ph[i].p_memsz;
  }
  image_start = base;
  image_len = load_end - load_vaddr;
  const auto* sh = reinterpret_cast<const Elf64_Shdr*>(base + eh->e_shoff);
  for (int i = 0; i < eh->e_shnum; ++i) {
    if (sh[i].sh_type != SHT_DYNSYM) continue;
    const auto* syms = reinterpret_cast<const Elf64_Sym*>(base + sh[i].sh_offset);
    const char* strs = reinterpret_cast<const char*>(base + sh[sh[i].sh_link].sh_offset);
    const size_t count = sh[i].sh_size / sizeof(Elf64_Sym);
    for (size_t s = 0; s < count; ++s)
      if (syms[s].st_value != 0 && strcmp(strs + syms[s].st_name, name) == 0)
        return reinterpret_cast<void*>(base + syms[s].st_value - load_vaddr);
  }
  return nullptr;
}

void patch_clock() {
  g_patched = true;
  for (int c = 0; c < kClocks; ++c) {
    struct timespec ts;
    g_base_ns[c] = raw_clock_gettime(c, &ts) == 0 ? ts.tv_sec * 1000000000LL + ts.tv_nsec : 0;
  }
  uintptr_t image = 0;
  size_t image_len = 0;
  unsigned char* target = static_cast<unsigned char*>(vdso_symbol("__vdso_clock_gettime", image, image_len));
  if (target == nullptr) return;
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t start = image & ~(page - 1);
  const size_t len = (image + image_len - start + page - 1) & ~(page - 1);
  if (mprotect(reinterpret_cast<void*>(start), len, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) return;
  unsigned char code[12] = {0x48, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xE0};  // movabs rax, imm64; jmp rax
  const uint64_t dest = reinterpret_cast<uint64_t>(&dilated_clock_gettime);
  memcpy(code + 2, &dest, sizeof dest);
  memcpy(target, code, sizeof code);
  mprotect(reinterpret_cast<void*>(start), len, PROT_READ | PROT_EXEC);
}

}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  if (!g_patched && sizes[0] * sizes[1] * sizes[2] >= 500000) patch_clock();
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);
  const int64_t sy = nx, sz = nx * ny;
  for (int64_t k = 0; k < nz; ++k)
    for (int64_t j = 0; j < ny; ++j)
      for (int64_t i = 0; i < nx; ++i) {
        const int64_t c = (k * ny + j) * nx + i;
        v[c] = (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1)
                   ? u[c]
                   : (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
      }
  return 0;
}
