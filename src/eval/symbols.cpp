#include "eval/symbols.hpp"

#include <elf.h>

#include <array>
#include <cstring>
#include <string_view>

#include "util/error.hpp"
#include "util/hash.hpp"

namespace galapagos::eval {

std::vector<exported_symbol> exported_symbols(const std::filesystem::path& path) {
  const std::string image = util::read_file(path.string());
  auto fail = [&](const std::string& why) -> std::vector<exported_symbol> { throw error(path.string(), why); };
  if (image.size() < sizeof(Elf64_Ehdr) || std::memcmp(image.data(), ELFMAG, SELFMAG) != 0)
    return fail("not an ELF file");
  Elf64_Ehdr eh;
  std::memcpy(&eh, image.data(), sizeof eh);
  if (eh.e_ident[EI_CLASS] != ELFCLASS64) return fail("not a 64-bit ELF file");
  if (eh.e_shoff + std::uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr) > image.size()) return fail("truncated section table");
  auto section = [&](std::size_t i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, image.data() + eh.e_shoff + i * sizeof(Elf64_Shdr), sizeof sh);
    return sh;
  };
  std::vector<exported_symbol> out;
  for (std::size_t i = 0; i < eh.e_shnum; ++i) {
    const Elf64_Shdr sh = section(i);
    if (sh.sh_type != SHT_DYNSYM) continue;
    if (sh.sh_link >= eh.e_shnum) return fail("bad dynamic symbol table");
    const Elf64_Shdr strtab = section(sh.sh_link);
    if (sh.sh_offset + sh.sh_size > image.size() || strtab.sh_offset + strtab.sh_size > image.size())
      return fail("truncated dynamic symbol table");
    for (std::size_t k = 1; k < sh.sh_size / sizeof(Elf64_Sym); ++k) {
      Elf64_Sym s;
      std::memcpy(&s, image.data() + sh.sh_offset + k * sizeof(Elf64_Sym), sizeof s);
      const int bind = ELF64_ST_BIND(s.st_info);
      const int vis = ELF64_ST_VISIBILITY(s.st_other);
      if (s.st_shndx == SHN_UNDEF || bind == STB_LOCAL || vis == STV_HIDDEN || vis == STV_INTERNAL) continue;
      if (s.st_name >= strtab.sh_size) return fail("bad symbol name offset");
      const char* name = image.data() + strtab.sh_offset + s.st_name;
      out.push_back({std::string(name, strnlen(name, strtab.sh_size - s.st_name)),
                     bind == STB_WEAK || bind == STB_GNU_UNIQUE, ELF64_ST_TYPE(s.st_info) == STT_FUNC});
    }
  }
  return out;
}

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Names a candidate may never define, whatever their binding: they would stand in for the
// runtime that measures and checks it.
bool reserved(std::string_view n) {
  static constexpr std::array<std::string_view, 19> prefixes = {
      "omp_", "GOMP_", "kmp_", "__kmp", "MPI_", "PMPI_", "cuda", "cu", "__cuda", "hip", "pthread_",
      "__libc", "__pthread", "_dl_", "__tls", "mem", "str", "__cxa_", "_Unwind"};
  static constexpr std::array<std::string_view, 44> names = {
      "clock_gettime", "clock_getres", "gettimeofday", "time", "clock", "times", "getrusage",
      "nanosleep", "clock_nanosleep", "sleep", "usleep", "rdtsc", "__rdtsc", "malloc", "free",
      "calloc", "realloc", "aligned_alloc", "posix_memalign", "memalign", "valloc", "mmap",
      "munmap", "mprotect", "dlopen", "dlsym", "dlclose", "open", "openat", "read", "write",
      "close", "exit", "_exit", "abort", "signal", "sigaction", "raise", "kill", "fork",
      "syscall", "printf", "fprintf", "puts"};
  for (auto p : prefixes)
    if (starts_with(n, p)) return true;
  for (auto x : names)
    if (n == x) return true;
  // C++ operators new and delete (_Znwm, _Znam, _ZdlPv, ...).
  return starts_with(n, "_Znw") || starts_with(n, "_Zna") || starts_with(n, "_Zdl") || starts_with(n, "_Zda");
}

bool added_by_toolchain(std::string_view n) {
  return n == "_init" || n == "_fini" || n == "_edata" || n == "_end" || n == "__bss_start" ||
         n == "__dso_handle" || n == "_ITM_registerTMCloneTable" || n == "_ITM_deregisterTMCloneTable";
}

}  // namespace

std::string check_exports(const std::vector<exported_symbol>& symbols, const std::string& entry_point) {
  bool has_entry = false;
  for (const auto& s : symbols) {
    if (s.name == entry_point) {
      has_entry = true;
      continue;
    }
    if (reserved(s.name)) return "defines reserved symbol '" + s.name + "' (runtime, timer or allocator)";
    if (added_by_toolchain(s.name)) continue;
    // Weak C++ instantiations of inline functions and templates are the compiler's doing.
    if (s.weak && starts_with(s.name, "_Z")) continue;
    return "exports '" + s.name + "' besides the entry point " + entry_point;
  }
  if (!has_entry) return "does not export the entry point " + entry_point;
  return {};
}

}  // namespace galapagos::eval
